/**
 * Keeps known secret values out of what loopwright commits. Before the iteration's commit, every file
 * the maker left changed is searched for the values loopwright holds; each place found is recorded as
 * a blocking `secret-in-change` flag naming the file and line (never the value), then the value is
 * replaced by `[redacted:NAME]` in the file. So the value reaches no commit, no diff.patch, no brief,
 * and no push.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RecordedTamperFlag } from "../../core/events.ts";
import type { KnownSecret } from "../../core/redact.ts";
import { readRegularFile } from "../../files/read-regular-file.ts";
import { git } from "../../git/git.ts";
import { asLatin1, findSecretValues, replaceSecretValues } from "../../verify/secret-values.ts";
import type { RunContext } from "../run-context.ts";

/** Files larger than this are not searched (a documented gap: secrets are written into small files). */
const maximumSearchedBytes = 32 * 1024 * 1024;

/**
 * Searches `files` (the maker's pending change, relative to its checkout) for secret values, flags and
 * scrubs them; returns true when a file was rewritten (the caller snapshots the checkout again). A
 * no-op when loopwright holds no secrets. The maker's own commits never reach the loop's branch (see
 * commitIteration), so only the files it left matter.
 */
export async function scrubSecretsFromChange(
  context: RunContext,
  iteration: number,
  files: readonly string[],
): Promise<boolean> {
  const secrets = asLatin1(context.redact.secrets ?? []);
  if (secrets.length === 0 || files.length === 0) return false;
  const worktree = context.makerWorktree;
  const found: { file: string; text: string; flags: Omit<RecordedTamperFlag, "id">[] }[] = [];
  for (const file of files) {
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
  if (found.length === 0) return false;
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
  return true;
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
