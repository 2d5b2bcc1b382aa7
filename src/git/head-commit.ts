/**
 * `repositoryCommitAt(path, "HEAD")` read from the files of a plain repository, without a git process:
 * the usual case of `validate` (a spec's default base is HEAD), where starting git costs more than the
 * rest of the check once the spec is cached (a spawn blocks the main thread until git has started: 5–12
 * ms of CPU and 13–50 ms of wall time on a loaded 2-core machine, measured around `execFile`; reading
 * the files and inflating the commit with node:zlib: ~4–5 ms of CPU).
 *
 * It answers only what git would: HEAD names a branch whose ref is a loose file or a `packed-refs` line
 * (or HEAD is a commit id), and the object is a loose commit, inflated whole and checked (`commit
 * <size>`, then exactly that many bytes), as `rev-parse --verify HEAD^{commit}` peels it. Anything else
 * (a packed object, a symbolic ref below HEAD, an unborn branch, replace refs, another commit-ish) is
 * undefined: the caller asks git, which also words the errors.
 */
import { join, resolve } from "node:path";
import { readdirSync, readFileSync, statSync } from "../files/node-fs.ts";
import { plainRepositoryAt } from "./plain-repository.ts";

/** A SHA-1 object id: a plain repository has no extensions, so no other object format. */
const objectId = /^[0-9a-f]{40}$/;

/**
 * A branch name read here: segments of letters, digits, `_`, `-` and inner dots, none ending `.lock`
 * (a narrower set than git allows, and than ref-files.ts reads, whose node:fs/promises import this
 * start-up path does without); any other name is git's.
 */
const plainBranch = /^(?:[A-Za-z0-9_-][A-Za-z0-9._-]*\/)*[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

function isPlainBranch(branch: string): boolean {
  return plainBranch.test(branch) && !branch.includes("..") && !/\.lock(\/|$)|\.(\/|$)/.test(branch);
}

/**
 * The repository at `path` and the commit `commitish` names there, as `repositoryCommitAt` answers in
 * its usual case, for `commitish` HEAD in a plain repository; undefined for anything else. Never throws.
 */
export function plainHeadCommitAt(
  path: string,
  commitish: string,
  env: NodeJS.ProcessEnv = process.env,
): { root: string; commonDirectory: string; commit: string } | undefined {
  if (commitish !== "HEAD" || env.GIT_REPLACE_REF_BASE !== undefined) return undefined;
  const absolute = resolve(path);
  try {
    if (!statSync(absolute, { throwIfNoEntry: false })?.isDirectory()) return undefined;
    const repository = plainRepositoryAt(absolute, env);
    if (!repository) return undefined;
    const commit = headObject(repository.commonDirectory);
    if (commit === undefined || !isLooseCommit(repository.commonDirectory, commit)) return undefined;
    return { ...repository, commit };
  } catch {
    return undefined;
  }
}

/** The object HEAD names through at most one branch, read from the ref files; undefined when unsure. */
function headObject(gitDirectory: string): string | undefined {
  const head = readFileSync(join(gitDirectory, "HEAD"), "latin1").replace(/\n$/, "");
  if (objectId.test(head)) return head;
  const branch = /^ref: refs\/heads\/(.+)$/.exec(head)?.[1];
  if (branch === undefined || !isPlainBranch(branch)) return undefined;
  const packed = readOptional(join(gitDirectory, "packed-refs"));
  // Replace refs change what an object id stands for (its type included): git's to peel.
  if (packed?.includes(" refs/replace/") || hasEntries(join(gitDirectory, "refs", "replace")))
    return undefined;
  const loose = readOptional(join(gitDirectory, "refs", "heads", ...branch.split("/")));
  if (loose !== undefined) {
    const name = loose.replace(/\n$/, "");
    return objectId.test(name) ? name : undefined;
  }
  const suffix = ` refs/heads/${branch}`;
  for (const line of packed?.split("\n") ?? []) {
    if (!line.endsWith(suffix)) continue;
    const name = line.slice(0, -suffix.length);
    return objectId.test(name) ? name : undefined;
  }
  return undefined;
}

/** True when `id` is a loose object of type commit whose stored size matches its content. */
function isLooseCommit(gitDirectory: string, id: string): boolean {
  const stored = readFileSync(join(gitDirectory, "objects", id.slice(0, 2), id.slice(2)));
  // Loaded here: most commands never read an object.
  const object = process.getBuiltinModule("node:zlib").inflateSync(stored);
  const headerEnd = object.indexOf(0);
  const header = /^commit (\d+)$/.exec(object.subarray(0, headerEnd).toString("latin1"));
  return header !== null && Number(header[1]) === object.length - headerEnd - 1;
}

/** The file's text, or undefined when there is none; any other failure throws. */
function readOptional(path: string): string | undefined {
  try {
    return readFileSync(path, "latin1");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
}

/** True when `folder` exists and is not an empty folder. */
function hasEntries(folder: string): boolean {
  const found = statSync(folder, { throwIfNoEntry: false });
  if (!found) return false;
  if (!found.isDirectory()) return true;
  return readdirSync(folder).length > 0;
}
