/**
 * Keeps known secret values out of what loopwright commits. Before the iteration's commit, every file
 * the maker changed since the iteration started (committed by itself or not) is searched for the values
 * loopwright holds; each place found is recorded as a blocking `secret-in-change` flag naming the file
 * and line (never the value), then the value is replaced by `[redacted:NAME]` in the file, and commits
 * the maker made with it are undone (their changes stay, to be committed once, scrubbed). So the value
 * reaches no commit, no diff.patch, no brief, and no push.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { KnownSecret } from "../../gates/redact.ts";
import { git } from "../../git/git.ts";
import { asLatin1, findSecretValues, replaceSecretValues } from "../../verify/secret-values.ts";
import type { RecordedTamperFlag } from "../events.ts";
import { readRegularFile } from "../read-regular-file.ts";
import type { RunContext } from "../run-context.ts";

/** Files larger than this are not searched (a documented gap: secrets are written into small files). */
const maximumSearchedBytes = 32 * 1024 * 1024;

/** Searches, flags and scrubs the maker's pending change; a no-op when loopwright holds no secrets. */
export async function scrubSecretsFromChange(
  context: RunContext,
  iteration: number,
  startSha: string,
): Promise<void> {
  const secrets = asLatin1(context.redact.secrets ?? []);
  if (secrets.length === 0) return;
  const worktree = context.makerWorktree;
  const found: { file: string; text: string; flags: Omit<RecordedTamperFlag, "id">[] }[] = [];
  for (const file of await changedSince(worktree, startSha)) {
    const read = await readRegularFile(join(worktree, file), {
      maximumBytes: maximumSearchedBytes,
      noFollow: true,
      encoding: "latin1",
    });
    if (!read.ok) continue;
    const places = findSecretValues(read.text, secrets);
    if (places.length === 0) continue;
    found.push({
      file,
      text: read.text,
      flags: places.map((place) => ({
        kind: "secret-in-change",
        file,
        line: place.line,
        detail: `the value of ${place.name}, a secret loopwright holds, was written here; it was replaced by [redacted:${place.name}] and is neither committed nor pushed`,
      })),
    });
  }
  const committedSecret = await madeCommitsHoldSecrets(worktree, startSha, context.redact.secrets ?? []);
  if (found.length === 0 && !committedSecret) return;
  // Flags first: durable before the files change, so a crash in between cannot lose them.
  const flags = found
    .flatMap((entry) => entry.flags)
    .map((flag, index) => ({ id: `S${index + 1}`, ...flag }));
  for (const flag of flags) await context.append("tamper_flagged", { iteration, flag });
  for (const entry of found) {
    await writeFile(
      join(worktree, entry.file),
      Buffer.from(replaceSecretValues(entry.text, secrets), "latin1"),
    );
  }
  // The maker's own commits held the value: undo them, keeping their changes for the one scrubbed commit.
  if (committedSecret) await git(["reset", "--soft", "--quiet", startSha], worktree);
}

/** Tracked files that differ from `startSha` (committed or not) and untracked files git would add. */
async function changedSince(worktree: string, startSha: string): Promise<string[]> {
  const tracked = await git(["diff", "--name-only", "-z", "--no-renames", startSha, "--"], worktree);
  const untracked = await git(["ls-files", "-z", "--others", "--exclude-standard"], worktree);
  return [...new Set(`${tracked}\0${untracked}`.split("\0").filter((file) => file !== ""))].sort();
}

/** True when commits made since `startSha` added a secret value (even one removed again later). */
async function madeCommitsHoldSecrets(
  worktree: string,
  startSha: string,
  secrets: readonly KnownSecret[],
): Promise<boolean> {
  const head = await git(["rev-parse", "HEAD"], worktree, { trim: true });
  if (head === startSha) return false;
  return (await secretsInHistory(worktree, startSha, head, secrets)).length > 0;
}

/**
 * The names of the secrets whose values the commits `from..to` add anywhere in their patches (also
 * when a later commit removes them again: the history would still carry them). `secrets` as loopwright
 * holds them (UTF-8).
 */
export async function secretsInHistory(
  repository: string,
  from: string,
  to: string,
  secrets: readonly KnownSecret[],
): Promise<string[]> {
  if (secrets.length === 0 || from === to) return [];
  const patches = await git(
    ["log", "-p", "--format=", "--no-ext-diff", "--no-textconv", "--binary", `${from}..${to}`, "--"],
    repository,
  );
  return [...new Set(findSecretValues(patches, secrets).map((place) => place.name))].sort();
}
