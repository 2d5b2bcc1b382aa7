/**
 * Evidence sources read from git and the gate logs: what a path is at the graded commit (following
 * symbolic links while they stay inside the repository) and what a gate printed there.
 */
import { posix } from "node:path";
import { readRegularFile } from "../files/read-regular-file.ts";
import { git } from "../git/git.ts";
import type { CitedEntry, EvidenceSources } from "./evidence-check.ts";
import { gatePrintedText } from "./gate-printed-text.ts";

/** Largest gate log read for evidence (logs are capped at 16 MiB by default). */
const maximumLogBytes = 64 * 1024 * 1024;

/** Links followed before a path counts as a loop of links. */
const maximumLinks = 8;

/**
 * Sources for the commit `sha` of the repository at `worktree`; `logPaths(gateId)` lists the logs of
 * that gate's runs on `sha` (none: the gate never ran there).
 */
export function commitEvidenceSources(
  worktree: string,
  sha: string,
  logPaths: (gateId: string) => string[],
): EvidenceSources {
  return {
    entry: (path) => entryAt(worktree, sha, path, 0),
    gateOutput: async (gateId) => {
      const paths = logPaths(gateId);
      if (paths.length === 0) return undefined;
      // Only a regular log, never through a link the maker planted (a link to /dev/zero never ends).
      const reads = await Promise.all(
        paths.map((path) => readRegularFile(path, { maximumBytes: maximumLogBytes, noFollow: true })),
      );
      const texts = reads.map((read) => (read.ok ? read.text : ""));
      return texts.map(gatePrintedText).join("\n");
    },
  };
}

async function entryAt(
  worktree: string,
  sha: string,
  path: string,
  links: number,
): Promise<CitedEntry | undefined> {
  const listed = await git(["--literal-pathspecs", "ls-tree", "-z", sha, "--", path], worktree).catch(
    () => "",
  );
  // `<mode> <type> <object>\t<path>`; only the entry for exactly this path counts.
  const entry = listed
    .split("\0")
    .map((line) => /^(\d+) (\w+) ([0-9a-f]+)\t(.*)$/s.exec(line))
    .find((match) => match?.[4] === path);
  if (!entry) return undefined;
  const [, mode, type, object] = entry;
  if (type === "tree") return { kind: "directory" };
  if (type === "commit") return { kind: "other", what: "a submodule" };
  const text = await git(["cat-file", "blob", object], worktree).catch(() => undefined);
  if (text === undefined) return undefined;
  if (mode === "120000") {
    const target = posix.normalize(posix.join(posix.dirname(path), text));
    if (text.startsWith("/") || target === ".." || target.startsWith("../")) {
      return { kind: "other", what: "a symbolic link out of the repository" };
    }
    if (target === "." || target === "") return { kind: "directory" };
    if (links >= maximumLinks) return { kind: "other", what: "a loop of symbolic links" };
    return entryAt(worktree, sha, target, links + 1);
  }
  return { kind: "file", lines: text.split("\n").length - (text.endsWith("\n") ? 1 : 0) };
}
