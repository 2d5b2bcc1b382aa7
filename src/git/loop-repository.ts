/**
 * The loop's own git, out of the maker's reach. A loop's checkouts (the maker's, the gates', the
 * verifier's scratch) are plain folders in the state folder, not linked worktrees of the user's
 * repository: nothing in them leads to the user's `.git`. loopwright works on them only through a
 * private git directory of its own (config, HEAD, one index per checkout), with no system, global or
 * checkout configuration, writing objects straight into the user's object store. The `.git` each
 * checkout holds (for the maker's and the gates' own git commands) is rebuilt by loopwright before
 * every use (or, when it is exactly what the last rebuild made but for its files' contents, those files
 * rewritten: checkout-git-refresh.ts), and never read by git: whatever a maker writes there (`gitdir:` to
 * the user's repository, hooks, `core.fsmonitor`, filters, a symlink) is discarded unused. The user's repository receives only the
 * commits loopwright makes, on refs it names.
 */

import { randomUUID } from "node:crypto";
import { copyFile, cp, lstat, mkdir, open, readdir, rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "../files/node-fs.ts";
import { type ExpectedGit, recordRebuiltGit, refreshCheckoutGit } from "./checkout-git-refresh.ts";
import { git, gitSequence } from "./git.ts";
import {
  forgetIndex,
  heldBy,
  indexHolds,
  knownIndexHolding,
  pendingListing,
  recordIndex,
} from "./known-index.ts";
import {
  type CleanShape,
  cleanAfterReadTreeIdle,
  cleanShape,
  ignoreFilesAsIndexed,
  indexEntryCount,
  indexStrayFiles,
  maximumIndexEntries,
  missingIndexPaths,
} from "./missing-index-paths.ts";
import { isPlainBranchPath } from "./ref-files.ts";
import { repositoryPaths } from "./repository-paths.ts";
import { attributesName, strayCheckoutFiles, trackedFolders } from "./stray-checkout-files.ts";
import { checkoutClock, untouchedCheckout } from "./untouched-checkout.ts";
import { assertOutsideCheckout } from "./worktrees.ts";

/** Where a loop's git lives. */
export interface LoopRepository {
  /** The user's checkout: refs are read and moved there, commits made there. */
  root: string;
  /** The user's object store, where loopwright's snapshots are written. */
  objectDirectory: string;
  /** loopwright's private git directory (in the state folder): its config and the checkouts' indexes. */
  directory: string;
}

/** What a checkout's own `.git` says it is on: the loop's branch, or a detached commit. */
export type CheckoutHead = { branch: string } | { detached: true };

/** Configuration nobody but loopwright wrote: no system or global file (the repository's is ours). */
const noOutsideConfig = { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };

/**
 * Opens (and on first use creates) the private git directory `directory` for the user's repository at
 * `root`. The user's `info/exclude` is copied in, so that what loopwright commits ignores the same
 * files the user's own commits would.
 */
export async function openLoopRepository(root: string, directory: string): Promise<LoopRepository> {
  // Known already in a run (preflight asked git for it): asked now, beside the creation, when not.
  const paths = repositoryPaths(root);
  // Up to its git request, the creation runs in this turn (synchronous folder calls, each well under a
  // millisecond): the request reaches a waiting shell now, not after a round trip through libuv's thread
  // pool per folder call (the prepare step waits on this git before it writes either checkout).
  const creating = exists(join(directory, "HEAD")) ? undefined : createLoopGit(directory);
  // The user's excludes are copied while git creates the repository (`git init` leaves `info/` alone).
  const excludeCopied = creating && paths.then(({ exclude }) => copyExclude(exclude, directory));
  const [{ objects }] = await Promise.all([paths, creating, excludeCopied]);
  return { root, objectDirectory: resolve(root, objects), directory };
}

/** Copies the user's `info/exclude` (when there is one) into the private git directory `directory`. */
async function copyExclude(exclude: string, directory: string): Promise<void> {
  await mkdir(join(directory, "info"), { recursive: true });
  await copyFile(exclude, join(directory, "info", "exclude")).catch(() => {});
}

/** Something is at `path` (a link counts, wherever it leads). */
function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Creates the private git directory `directory`, and the fresh `.git` that its checkouts copy
 * (`freshGitDirectory`) in the same git request (one round trip where two ran one after the other: each
 * checkout's write waited on both). The request is sent before this returns.
 */
async function createLoopGit(directory: string): Promise<void> {
  mkdirSync(directory, { recursive: true });
  const making = freshByDirectory.has(directory) ? undefined : join(directory, `fresh-git.${randomUUID()}`);
  try {
    if (making) mkdirSync(making);
    await gitSequence(
      [
        ["init", "--quiet", "--bare", "--template=", directory],
        ...(making ? [["init", "--quiet", "--template=", making]] : []),
      ],
      directory,
      { env: noOutsideConfig },
    );
  } catch (error) {
    if (making) await rm(making, { recursive: true, force: true });
    throw error;
  }
  if (making && !freshByDirectory.has(directory))
    rememberFreshGit(directory, makeFreshGitDirectory(directory, making));
  else if (making) await rm(making, { recursive: true, force: true });
}

/** The tracked files of the checkout that are missing: `checkOut` writes them again. */
/**
 * The tracked files missing from a checkout, as git lists them: lstat fails, or a folder on the way is
 * not a real folder (a symlink where a tracked folder was: `ls-files --deleted` would look through it).
 */
const deletedListing: readonly string[] = ["diff-files", "--name-only", "-z", "--diff-filter=D"];

/**
 * Removes untracked files and folders, and untracked .gitignore files even where they ignore themselves.
 * Under no per-user excludes file: git reads `$XDG_CONFIG_HOME/git/ignore` (or `~/.config/git/ignore`)
 * whatever the global configuration says, and anything that could write it (a gate, a maker) could keep
 * a planted file, ignored there, in every later checkout of the gates.
 */
const cleanCommand: readonly string[] = [
  "-c",
  "core.excludesFile=/dev/null",
  "clean",
  "-ffd",
  "-e",
  "!.gitignore",
];
/** A line of clean's output that removed a .gitignore (quoted by git when its path is unusual). */
const removedIgnoreFile = /^Removing .*\.gitignore"?$/m;
/**
 * A line of clean's output that removed a .gitattributes (a file, a symlink, or a folder: a slash
 * after), in any case (a file system that ignores case opens `.GitAttributes` for git).
 */
const removedAttributesFile = /^Removing .*\.gitattributes"?\/?"?$/im;
/** Folders of nested untracked .gitignore files peeled, at most (each pass one level). */
const maximumCleanPasses = 64;

/** The size of the object ids of the repository whose commit `sha` names in full; else undefined. */
function hashBytesOf(sha: string): 20 | 32 | undefined {
  return /^[0-9a-f]{40}$/.test(sha) ? 20 : /^[0-9a-f]{64}$/.test(sha) ? 32 : undefined;
}

/** What `checkOut` may skip. */
export interface CheckOutOptions {
  /**
   * `snapshotTree` has just shown that the checkout's files (all but the ignored ones) are exactly
   * `sha`'s tree, and left its private index at that tree: writing the files again would change
   * nothing, so only the clean (empty folders) and the fresh `.git` remain to do.
   */
  filesMatch?: boolean;
  /** With `filesMatch`: the snapshot cleaned the checkout too (`cleanIfTree`); only the `.git` remains. */
  cleaned?: boolean;
}

/**
 * Makes `checkout` hold exactly the files of `sha`: tracked files written, files of the previous
 * checkout that `sha` lacks and untracked files removed, IGNORED files (node_modules, .env) kept but
 * for an untracked `.gitattributes` or `.git` in a folder that holds tracked files (see
 * stray-checkout-files.ts). Then gives it a fresh `.git` on `head`. A checkout that is missing, or
 * that is not a real folder (a symlink), is created anew. `index` names the checkout's private index (`maker`, `gates`, ...).
 * Resolves true when the checkout was created anew (nothing was there before), false otherwise.
 */
export async function checkOut(
  repository: LoopRepository,
  checkout: string,
  index: string,
  sha: string,
  head: CheckoutHead,
  options: CheckOutOptions = {},
): Promise<boolean> {
  const written = await writeCheckoutFiles(repository, checkout, index, sha, `${sha}^{commit}`, options);
  if (written.writes)
    recordIndex(written.indexFile, `commit:${sha}`, checkoutClock(checkout, repository.directory));
  await rebuildCheckoutGit(repository, checkout, index, sha, head);
  return written.created;
}

/**
 * `checkOut` of the commit `commit` resolves to, begun before it is made: the files are written from its
 * tree `tree` (the same files `checkOut` writes from the commit) at once, while the commit is made; once
 * it is, the private index is recorded as holding it and the `.git` is put on it. Rejects when `commit`
 * does, having written the files and recorded nothing (the next `checkOut` there runs in full).
 */
export async function checkOutTreeOfCommit(
  repository: LoopRepository,
  checkout: string,
  index: string,
  tree: string,
  commit: Promise<string>,
  head: CheckoutHead,
): Promise<void> {
  const written = await writeCheckoutFiles(repository, checkout, index, tree, `${tree}^{tree}`, {});
  const sha = await commit;
  // Nothing but this checkout has run there since its files were written.
  if (written.writes)
    recordIndex(written.indexFile, `commit:${sha}`, checkoutClock(checkout, repository.directory));
  await rebuildCheckoutGit(repository, checkout, index, sha, head);
}

/**
 * The files part of `checkOut`: makes `checkout` hold exactly the files of `treeIsh` (`<commit>^{commit}`
 * or `<tree>^{tree}`; `id` is that commit's or tree's full id), as `checkOut` says. The private index is
 * left holding them, not yet recorded (`writes`: it was written).
 */
async function writeCheckoutFiles(
  repository: LoopRepository,
  checkout: string,
  index: string,
  id: string,
  treeIsh: string,
  options: CheckOutOptions,
): Promise<{ created: boolean; writes: boolean; indexFile: string }> {
  await assertOutsideCheckout(repository.root, checkout);
  // The fresh `.git` the checkout gets at the end is made (once per private git) while the files are written.
  freshGitDirectory(repository).catch(() => {});
  const created = await ensureRealFolder(checkout);
  const env = checkoutEnvironment(repository, checkout, index);
  const indexFile = env.GIT_INDEX_FILE;
  // No shortcut from the recorded index here (unlike `snapshotTree`): a listing compares content, while
  // `read-tree --reset -u` also rewrites a tracked file whose content matches but whose stat does not
  // (a gate that left it read-only, back-dated, or hard-linked to a file outside the checkout).
  // Clean runs first, against the index of the files written last: whatever is not theirs goes, a
  // symlink standing where a tracked folder was above all. Run after read-tree, it let read-tree see that
  // folder's files as up to date through the symlink (a gate had moved the folder, stat data and all)
  // and then removed the symlink, leaving the checkout without them. A folder created just now holds
  // nothing to clean.
  // Clean runs again after read-tree: the first one obeyed the .gitignore files the gate left, which
  // read-tree has just written back as committed (a gate that ignored what it planted is not obeyed).
  // Each clean also removes the untracked .gitignore files it meets (`-e '!.gitignore'`: a pattern on
  // the command line wins over the files' own), and while the last one removed any, clean runs again,
  // a folder deeper each time: what is left is ignored by the committed rules alone (installed
  // dependencies stay).
  const commands: (readonly string[])[] = [];
  // A checkout provably as git left it with this index (untouched-checkout.ts) holds nothing to clean:
  // of the commit asked for, nothing to write either; else only read-tree runs (it leaves nothing
  // untracked where nothing untracked was).
  const untouched = created || options.filesMatch ? undefined : untouchedSince(checkout, indexFile, id);
  if (untouched !== undefined && treeIsh === `${id}^{commit}` && untouched === `commit:${id}`)
    return { created, writes: false, indexFile };
  const cleans = !created && !(options.filesMatch && options.cleaned) && untouched === undefined;
  const writes = created || !options.filesMatch;
  // The clean after read-tree removes nothing when the ignore rules did not change in between and
  // read-tree left nothing untracked that the first clean did not look at (`cleanAfterReadTreeIdle`:
  // the same tracked .gitignore entries, every tracked path still tracked, no submodule): then whatever
  // is untracked and not ignored after read-tree was so during the first clean, which removed it. Those
  // rules are the tracked .gitignore files as the first clean read them, when each holds exactly its
  // blob (`ignoreFilesAsIndexed`, read before it ran), and the untracked ones it met, each of which it
  // removed (and said so: it is not quiet then, and any .gitignore it names sends the second clean
  // after it). The index read-tree wrote is read once it has ended; any doubt runs the second clean.
  const before = cleans && writes ? ignoreRulesAsIndexed(indexFile, checkout, id) : undefined;
  if (cleans) commands.push(writes && !before ? [...cleanCommand, "--quiet"] : cleanCommand);
  if (writes) commands.push(["read-tree", "--reset", "-u", treeIsh]);
  if (cleans && writes && !before) commands.push(cleanCommand);
  if (writes) forgetIndex(indexFile);
  let removed = await gitSequence(commands, checkout, { env, ...(before ? { resultOf: 0 } : {}) });
  if (before) {
    const after = cleanShape(indexFile, before.hashBytes);
    const idle =
      !/gitignore/i.test(removed) && after !== undefined && cleanAfterReadTreeIdle(before.shape, after);
    removed = idle ? "" : await git(cleanCommand, checkout, { env });
  }
  // A .gitattributes that a clean after read-tree removed was there while read-tree wrote the files.
  let attributesRemoved = writes && removedAttributesFile.test(removed);
  for (let pass = 0; cleans && removedIgnoreFile.test(removed) && pass < maximumCleanPasses; pass++) {
    removed = await git(cleanCommand, checkout, { env });
    attributesRemoved ||= removedAttributesFile.test(removed);
  }
  // An IGNORED symlink where a tracked folder was survives clean, and read-tree sees the files behind it
  // as up to date (or, writing a changed file there, replaces it by a real folder holding only the
  // files it wrote). Any tracked file missing afterwards, or behind something that is not a real folder,
  // means the stat data misled git: the files are written again from an index without any (git replaces
  // a symlink on a file's way by a folder). They are listed from the index read-tree wrote
  // (`missingIndexPaths`, without starting git), or by git when that index is large or of a form the
  // reader does not take.
  // A submodule's folder, which clean and read-tree leave alone, is emptied, as a fresh checkout has
  // it (only where the index reader lists the submodules: a large or unusual index leaves it as is).
  // An untracked .gitattributes in a folder holding tracked paths (kept by clean: a gate's .gitignore
  // edit, a folder the project ignores) made read-tree convert the files it wrote (git 2.39 has no
  // --attr-source), and their stat data now says they are up to date; an untracked `.git` there is a
  // repository for the next gates' git. Both are removed (never followed), and after a .gitattributes
  // the files are written again from an index without any, as are missing ones.
  let rewrite = attributesRemoved;
  const found = { submodules: [] as Buffer[], strays: [] as Buffer[] };
  if (writes && !created) {
    const hashBytes = hashBytesOf(id);
    const small = hashBytes !== undefined && (indexEntryCount(indexFile) ?? 0) <= maximumIndexEntries;
    const listed = small ? missingIndexPaths(indexFile, checkout, hashBytes, found) : undefined;
    if (listed) rewrite ||= listed.length > 0;
    else {
      // A large index of a form the reader takes gives its folders without a process; git lists the rest.
      const strays = hashBytes && indexStrayFiles(indexFile, checkout, hashBytes);
      const byGit = await listedByGit(checkout, env, strays === undefined);
      rewrite ||= byGit.rewrite;
      found.strays = strays ?? byGit.strays;
    }
  }
  emptyFolders(checkout, found.submodules);
  for (const stray of found.strays) {
    rmSync(stray, { recursive: true, force: true });
    rewrite ||= stray.toString("latin1").endsWith(attributesName);
  }
  if (rewrite) {
    await rm(indexFile, { force: true });
    await git(["read-tree", "--reset", "-u", treeIsh], checkout, { env });
  }
  return { created, writes, indexFile };
}

/** What the checkout's private index holds, when the checkout is provably untouched since (see above). */
function untouchedSince(checkout: string, indexFile: string, id: string): string | undefined {
  const hashBytes = hashBytesOf(id);
  return hashBytes === undefined ? undefined : untouchedCheckout(checkout, indexFile, hashBytes);
}

/**
 * The `CleanShape` of the checkout's private index (see `writeCheckoutFiles`) before its first clean,
 * when every tracked .gitignore there holds exactly its blob; undefined whenever not sure (a large or
 * unusual index, a .gitignore changed, linked, or missing). `id` is the full id the checkout is of,
 * which gives the size of the repository's object ids.
 */
function ignoreRulesAsIndexed(
  indexFile: string,
  checkout: string,
  id: string,
): { shape: CleanShape; hashBytes: 20 | 32 } | undefined {
  const hashBytes = hashBytesOf(id);
  if (hashBytes === undefined) return undefined;
  const shape = cleanShape(indexFile, hashBytes);
  if (!shape || !ignoreFilesAsIndexed(indexFile, checkout, hashBytes)) return undefined;
  return { shape, hashBytes };
}

/**
 * What `missingIndexPaths` finds, asked of git for an index it does not read: whether tracked files
 * are missing (or a path could not be looked at: a name that is not UTF-8), and `withStrays`, the
 * stray files of the folders holding tracked paths (a second git process, side by side).
 */
async function listedByGit(
  checkout: string,
  env: Record<string, string>,
  withStrays: boolean,
): Promise<{ rewrite: boolean; strays: Buffer[] }> {
  const [deleted, paths] = await Promise.all([
    git(deletedListing, checkout, { env }),
    withStrays ? git(["ls-files", "-z"], checkout, { env }) : "",
  ]);
  const tracked = trackedFolders(paths.split("\0").filter((path) => path !== ""));
  const latin1 = (names: Iterable<string>) => [...names].map((name) => Buffer.from(name).toString("latin1"));
  return {
    rewrite: deleted !== "" || paths.includes("\uFFFD"),
    strays: strayCheckoutFiles(checkout, latin1(tracked.folders), new Set(latin1(tracked.attributes))),
  };
}

/**
 * Removes what each folder `names` (relative to `checkout`, real folders on real folders: the index
 * reader checked them) holds; a symlink inside is removed, never followed.
 */
function emptyFolders(checkout: string, names: readonly Buffer[]): void {
  const base = Buffer.from(checkout.endsWith("/") ? checkout : `${checkout}/`);
  for (const name of names) {
    const folder = Buffer.concat([base, name, Buffer.from("/")]);
    for (const entry of readdirSync(folder, { encoding: "buffer" }))
      rmSync(Buffer.concat([folder, entry]), { recursive: true, force: true });
  }
}

/**
 * Stages every file of `checkout` in its private index (as `git add --all`: new, changed and deleted
 * files; ignored files stay out; no filter, hook or monitor runs) and returns the tree's SHA. What the
 * maker did with its own `.git` (commits, branches, a detached HEAD) does not matter: the files do.
 * With `cleanIfTree`, when the tree is that one, the checkout is also cleaned as `checkOut` cleans it
 * (empty folders removed), in the same process: pass `cleaned: true` to the `checkOut` that follows.
 */
export async function snapshotTree(
  repository: LoopRepository,
  checkout: string,
  index: string,
  options: { cleanIfTree?: string; listed?: { listing: string } } = {},
): Promise<string> {
  await assertRealFolder(checkout);
  const env = checkoutEnvironment(repository, checkout, index);
  const indexFile = env.GIT_INDEX_FILE;
  const expected = options.cleanIfTree;
  // The index is the one this process left holding that tree (the last iteration's commit snapshotted
  // it): when nothing differs from it, the snapshot is that tree and clean has nothing to remove. One git
  // where the full snapshot and clean run three; none when `listed` (see `listPendingFiles`) is given.
  if (
    expected !== undefined &&
    indexHolds(indexFile, `tree:${expected}`) &&
    (options.listed?.listing ?? (await pendingFiles(checkout, env))) === ""
  )
    return expected;
  forgetIndex(indexFile);
  const tree =
    expected === undefined
      ? await gitSequence([["add", "--all"], ["write-tree"]], checkout, { env, trim: true })
      : await gitSequence([["add", "--all"], ["write-tree"], ["clean", "-ffd", "--quiet"]], checkout, {
          env,
          trim: true,
          resultOf: 1,
          onlyIf: expected,
        });
  // The maker has ended (its processes with it): nothing writes in its checkout until the next turn.
  recordIndex(indexFile, `tree:${tree}`, checkoutClock(checkout, repository.directory));
  return tree;
}

/**
 * `pendingListing`'s output for the checkout `env` names: empty, with no git, when the checkout is
 * provably untouched since git wrote its private index (untouched-checkout.ts: no untracked entry at all,
 * every tracked file as recorded, which is all the listing looks for); else git's listing.
 */
async function pendingFiles(checkout: string, env: Record<string, string>): Promise<string> {
  const holds = knownIndexHolding(env.GIT_INDEX_FILE);
  const hashBytes = holds === undefined ? undefined : hashBytesOf(holds.slice(holds.indexOf(":") + 1));
  if (hashBytes !== undefined && untouchedCheckout(checkout, env.GIT_INDEX_FILE, hashBytes) !== undefined)
    return "";
  return git(pendingListing, checkout, { env });
}

/**
 * The listing `snapshotTree` with `cleanIfTree` runs first (`pendingListing`: the files of the checkout
 * that differ from its private index), run now, for a snapshot to come when nothing will run in the
 * checkout or write its index meanwhile (a change after it would go unseen, as one after the snapshot's
 * own listing does). Undefined when the checkout is not a real folder or git fails: the snapshot then
 * runs its own.
 */
export async function listPendingFiles(
  repository: LoopRepository,
  checkout: string,
  index: string,
): Promise<{ listing: string } | undefined> {
  if (!(await isRealFolder(checkout))) return undefined;
  const env = checkoutEnvironment(repository, checkout, index);
  return pendingFiles(checkout, env).then(
    (listing) => ({ listing }),
    () => undefined,
  );
}

/**
 * Whether `checkout` still holds exactly the files `checkOut` wrote there at commit `sha` (ignored files
 * aside): true only when this process recorded its private index as holding that commit (see
 * known-index.ts) and one listing (`listed`, when `listPendingFiles` has just run it) finds no file
 * changed, added or deleted and no folder left empty. No object is written, nothing is changed.
 */
export async function unchangedSinceCheckOut(
  repository: LoopRepository,
  checkout: string,
  index: string,
  sha: string,
  listed?: { listing: string },
): Promise<boolean> {
  if (!(await isRealFolder(checkout))) return false;
  const env = checkoutEnvironment(repository, checkout, index);
  if (!indexHolds(env.GIT_INDEX_FILE, `commit:${sha}`)) return false;
  return (listed?.listing ?? (await pendingFiles(checkout, env))) === "";
}

/**
 * Lists the paths of `checkout` that differ from the commit `sha` (changed, added or deleted; untracked
 * files included, ignored ones not), without changing its private index and without writing a single
 * object: a file holding a secret must not reach the object store before it has been screened.
 */
export async function changedSince(
  repository: LoopRepository,
  checkout: string,
  index: string,
  sha: string,
): Promise<string[]> {
  await assertRealFolder(checkout);
  const scratchIndex = join(repository.directory, `${index}.listing.index`);
  const env = { ...checkoutEnvironment(repository, checkout, index), GIT_INDEX_FILE: scratchIndex };
  try {
    // One listing: tracked files that differ (compared by content: read-tree left no stat data, so
    // every file is hashed, never stored), deleted ones, and the untracked ones git would add.
    const listed = await gitSequence(
      [
        ["read-tree", `${sha}^{commit}`],
        ["ls-files", "-z", "--modified", "--deleted", "--others", "--exclude-standard"],
      ],
      checkout,
      { env },
    );
    return [...new Set(listed.split("\0").filter((file) => file !== ""))].sort();
  } finally {
    await rm(scratchIndex, { force: true });
  }
}

/**
 * The tree the checkout's private index holds: the files loopwright last checked out or snapshotted
 * there, whatever happened to the folder since (the empty tree for a checkout never used).
 */
export async function indexTree(
  repository: LoopRepository,
  checkout: string,
  index: string,
): Promise<string> {
  const env = checkoutEnvironment(repository, checkout, index);
  return git(["write-tree"], checkout, { env, trim: true });
}

/**
 * The commit whose files `checkOut` last wrote with the checkout's private index, when this process did
 * and the index is still byte for byte what it left (see known-index.ts); otherwise undefined (ask
 * `indexTree`). No git runs.
 */
export function knownIndexCommit(repository: LoopRepository, index: string): string | undefined {
  const holds = heldBy(join(repository.directory, `${index}.index`));
  return holds?.startsWith("commit:") ? holds.slice("commit:".length) : undefined;
}

/** Deletes a checkout and its private index. A missing checkout is fine. */
export async function removeCheckout(
  repository: LoopRepository,
  checkout: string,
  index: string,
): Promise<void> {
  await rm(checkout, { recursive: true, force: true });
  await rm(join(repository.directory, `${index}.index`), { force: true });
}

/**
 * What the maker did with its checkout's `.git` during its turn, in a few words, or undefined when it
 * is still a git directory on `branch`: `switched to branch side`, `detached HEAD at <sha>`, `.git
 * replaced by a symlink`. Read from the files, never by running git there.
 */
export async function describeCheckoutGit(checkout: string, branch: string): Promise<string | undefined> {
  const dotGit = join(checkout, ".git");
  const stats = await lstat(dotGit).catch(() => undefined);
  if (!stats) return ".git deleted";
  if (stats.isSymbolicLink()) return ".git replaced by a symlink";
  if (!stats.isDirectory()) return ".git replaced by a file";
  const head = await readSmallFile(join(dotGit, "HEAD"));
  if (head === undefined) return ".git has no HEAD";
  const reference = /^ref: (\S+)$/.exec(head.trim());
  if (reference) {
    if (reference[1] === `refs/heads/${branch}`) return undefined;
    const name = reference[1].replace(/^refs\/heads\//, "");
    return `switched to branch ${name.slice(0, 200)}`;
  }
  if (/^[0-9a-f]{40,64}$/.test(head.trim())) return `detached HEAD at ${head.trim()}`;
  return ".git HEAD unreadable";
}

/**
 * The environment of a command in a checkout: loopwright's private git directory and index, the user's
 * object store, the checkout as work tree, and no configuration from outside.
 */
function checkoutEnvironment(
  repository: LoopRepository,
  checkout: string,
  index: string,
): Record<string, string> {
  return {
    ...noOutsideConfig,
    GIT_DIR: repository.directory,
    GIT_WORK_TREE: checkout,
    GIT_INDEX_FILE: join(repository.directory, `${index}.index`),
    GIT_OBJECT_DIRECTORY: repository.objectDirectory,
  };
}

/**
 * Replaces the checkout's `.git` (whatever it has become: a directory, a file, a symlink, which is
 * removed, never followed) with a new repository that borrows the user's objects, is on `head` at `sha`
 * and whose index matches the checkout, so the maker's and the gates' own git commands work.
 */
async function rebuildCheckoutGit(
  repository: LoopRepository,
  checkout: string,
  index: string,
  sha: string,
  head: CheckoutHead,
): Promise<void> {
  const dotGit = join(checkout, ".git");
  const fresh = await freshGitDirectory(repository);
  // The `.git` this process rebuilt last time, untouched since but for the contents of its files (HEAD,
  // the branch's ref, the index): those files are rewritten, and nothing else needs to be.
  const expected = expectedGit(repository, fresh, index, sha, head);
  if (expected && refreshCheckoutGit(dotGit, expected)) return;
  // A dozen small files and folders: written synchronously, each a few microseconds, rather than a
  // round trip through libuv's thread pool each (milliseconds in all, per checkout, on a busy machine).
  moveAside(repository, dotGit);
  if (fresh.content) writeCopy(fresh.content, dotGit);
  else await cp(fresh.path, dotGit, { recursive: true, errorOnExist: true, force: false });
  mkdirSync(join(dotGit, "objects", "info"), { recursive: true });
  writeFileSync(join(dotGit, "objects", "info", "alternates"), `${repository.objectDirectory}\n`);
  await pointHead(checkout, dotGit, sha, head, fresh.refFiles);
  await copyFile(join(repository.directory, `${index}.index`), join(dotGit, "index")).catch(() => {});
  if (expected) recordRebuiltGit(dotGit, expected);
}

/**
 * Every folder and file (with its bytes) of the `.git` that `rebuildCheckoutGit` writes without git: a
 * copy of the fresh `.git` read into memory, its alternates, HEAD and the branch's ref file, and the
 * checkout's private index as it is now. Undefined where git writes the refs (see `pointHead`).
 */
function expectedGit(
  repository: LoopRepository,
  fresh: FreshGit,
  index: string,
  sha: string,
  head: CheckoutHead,
): ExpectedGit | undefined {
  if (
    !fresh.content ||
    !fresh.refFiles ||
    !/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(sha) ||
    ("branch" in head && !isPlainBranchPath(head.branch))
  )
    return undefined;
  const folders = new Set(fresh.content.folders);
  const files = new Map(fresh.content.files.map((file) => [file.path, file.bytes]));
  folders.add("objects").add("objects/info");
  files.set("objects/info/alternates", Buffer.from(`${repository.objectDirectory}\n`));
  if ("branch" in head) {
    const segments = ["refs", "heads", ...head.branch.split("/")];
    for (let count = 1; count < segments.length; count++) folders.add(segments.slice(0, count).join("/"));
    files.set(segments.join("/"), Buffer.from(`${sha}\n`));
    files.set("HEAD", Buffer.from(`ref: refs/heads/${head.branch}\n`));
  } else {
    files.set("HEAD", Buffer.from(`${sha}\n`));
  }
  try {
    files.set("index", readFileSync(join(repository.directory, `${index}.index`)));
  } catch {
    // No index to copy: the rebuild copies none either.
  }
  return { folders, files };
}

/**
 * Takes `path` (whatever it is: a folder, a file, a symlink, which is moved, never followed) out of the
 * way at once, by renaming it into the private git directory's `trash/`, and deletes it there in the
 * background: a recursive delete is a few milliseconds of file-system work that nothing waits for. What
 * a crash leaves in `trash/` is deleted with the next. Where the rename fails (another file system), the
 * path is deleted in place.
 */
function moveAside(repository: LoopRepository, path: string): void {
  // Nothing there (a checkout made just now): no trash folder to make on the way.
  if (!exists(path)) return;
  const trash = join(repository.directory, "trash");
  try {
    mkdirSync(trash, { recursive: true });
    renameSync(path, join(trash, randomUUID()));
  } catch {
    // Missing already (force makes that fine), or not movable there.
    rmSync(path, { recursive: true, force: true });
    return;
  }
  emptyTrash(trash);
}

/** Trash folders being emptied, so that one emptying runs at a time per folder. */
const emptying = new Set<string>();

function emptyTrash(trash: string): void {
  if (emptying.has(trash)) return;
  emptying.add(trash);
  void readdir(trash)
    .then((entries) =>
      Promise.all(entries.map((entry) => rm(join(trash, entry), { recursive: true, force: true }))),
    )
    .catch(() => {})
    .finally(() => emptying.delete(trash));
}

/**
 * Puts the fresh `.git` at `dotGit` on `head` at `sha`. A copy of `git init` that keeps its refs as
 * files (the default, checked when it is made) gets its ref and HEAD written as git writes them,
 * sparing two git processes per checkout; otherwise, or for a branch name that is not a plain path
 * inside `refs/heads/`, git writes them.
 */
async function pointHead(
  checkout: string,
  dotGit: string,
  sha: string,
  head: CheckoutHead,
  refFiles: boolean,
): Promise<void> {
  if (
    !refFiles ||
    !/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(sha) ||
    ("branch" in head && !isPlainBranchPath(head.branch))
  ) {
    const env = { ...noOutsideConfig, GIT_DIR: dotGit };
    if ("branch" in head) {
      await git(["update-ref", `refs/heads/${head.branch}`, sha], checkout, { env });
      await git(["symbolic-ref", "HEAD", `refs/heads/${head.branch}`], checkout, { env });
    } else {
      await git(["update-ref", "--no-deref", "HEAD", sha], checkout, { env });
    }
    return;
  }
  if ("branch" in head) {
    const ref = join(dotGit, "refs", "heads", ...head.branch.split("/"));
    mkdirSync(dirname(ref), { recursive: true });
    writeFileSync(ref, `${sha}\n`, { flag: "wx" });
    writeFileSync(join(dotGit, "HEAD"), `ref: refs/heads/${head.branch}\n`);
  } else {
    writeFileSync(join(dotGit, "HEAD"), `${sha}\n`);
  }
}

/**
 * The `.git` that `git init --template=` makes in an empty folder, made once per private git directory
 * (in `fresh-git/.git` there, which nothing else touches) and copied into each checkout: a checkout's
 * `.git` is rebuilt before every use, and copying a folder costs far less than starting git. Made in a
 * folder of its own then renamed into place, so a half-made one is never copied.
 */
const freshByDirectory = new Map<string, Promise<FreshGit>>();

/**
 * A fresh `.git` to copy, and whether it keeps refs as files (`refs/heads/`, no `reftable/`). `content`:
 * its folders and files, read once, when it holds nothing else (no link, nothing special); each copy is
 * then written from memory, with no walk of the original.
 */
interface FreshGit {
  path: string;
  refFiles: boolean;
  content?: { folders: string[]; files: { path: string; bytes: Buffer; mode: number }[] };
}

/** Makes `target` (which must not exist) a copy of a fresh `.git` read by `readContent`. */
function writeCopy(content: NonNullable<FreshGit["content"]>, target: string): void {
  mkdirSync(target);
  // Folders come parents first (see `readContent`).
  for (const folder of content.folders) mkdirSync(join(target, folder));
  for (const file of content.files)
    writeFileSync(join(target, file.path), file.bytes, { flag: "wx", mode: file.mode });
}

/**
 * The folders (parents first) and files of `root`, or undefined when it holds anything else. Read with
 * synchronous calls: a fresh `.git` is a dozen entries, each read in microseconds, where a round trip
 * through libuv's thread pool per entry (milliseconds in all on a busy machine) kept both checkouts of a
 * loop's first run waiting for their `.git` after their files were written.
 */
function readContent(root: string): FreshGit["content"] {
  const folders: string[] = [];
  const files: { path: string; bytes: Buffer; mode: number }[] = [];
  const walk = (relative: string): boolean => {
    for (const entry of readdirSync(join(root, relative), { withFileTypes: true })) {
      const path = relative === "" ? entry.name : join(relative, entry.name);
      if (entry.isDirectory()) {
        folders.push(path);
        if (!walk(path)) return false;
      } else if (entry.isFile()) {
        const full = join(root, path);
        files.push({ path, bytes: readFileSync(full), mode: lstatSync(full).mode & 0o777 });
      } else return false;
    }
    return true;
  };
  return walk("") ? { folders, files } : undefined;
}

function freshGitDirectory(repository: LoopRepository): Promise<FreshGit> {
  return (
    freshByDirectory.get(repository.directory) ??
    rememberFreshGit(repository.directory, makeFreshGitDirectory(repository.directory))
  );
}

/** Keeps `fresh` as the private git directory's fresh `.git` (forgotten if it fails). */
function rememberFreshGit(directory: string, fresh: Promise<FreshGit>): Promise<FreshGit> {
  freshByDirectory.set(directory, fresh);
  fresh.catch(() => {
    if (freshByDirectory.get(directory) === fresh) freshByDirectory.delete(directory);
  });
  return fresh;
}

/**
 * The fresh `.git` of the private git directory `directory`, made there unless it is already; `made`: a
 * folder in `directory` where `git init --template=` has just made one (`openLoopRepository`), put in
 * place instead.
 */
async function makeFreshGitDirectory(directory: string, made?: string): Promise<FreshGit> {
  const folder = join(directory, "fresh-git");
  const dotGit = join(folder, ".git");
  if (made === undefined && isFile(join(dotGit, "HEAD"))) return freshGitAt(dotGit);
  const making = made ?? join(directory, `fresh-git.${randomUUID()}`);
  try {
    if (made === undefined) {
      await mkdir(making, { recursive: true });
      await git(["init", "--quiet", "--template=", making], making, { env: noOutsideConfig });
    }
    // Once git has made it, it is put in place and read at once (synchronous calls, see `readContent`).
    rmSync(folder, { recursive: true, force: true });
    renameSync(making, folder);
  } finally {
    rmSync(making, { recursive: true, force: true });
  }
  return freshGitAt(dotGit);
}

/** The fresh `.git` at `dotGit`, read. */
function freshGitAt(dotGit: string): FreshGit {
  return { path: dotGit, refFiles: keepsRefFiles(dotGit), content: readContent(dotGit) };
}

function keepsRefFiles(dotGit: string): boolean {
  return isFolder(join(dotGit, "refs", "heads")) && !isFolder(join(dotGit, "reftable"));
}

/** `path` is a folder itself (not a link to one). */
function isFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** `path` is a regular file itself (not a link to one). */
function isFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * A checkout must be a real folder: through a symlink, a reset or clean would act on its target.
 * Returns true when the folder did not exist and was created empty.
 */
async function ensureRealFolder(checkout: string): Promise<boolean> {
  // Looked at synchronously (microseconds; a thread pool round trip costs milliseconds on a busy machine).
  const stats = lstatOrUndefined(checkout);
  if (stats?.isDirectory()) return false;
  if (stats) await rm(checkout, { force: true });
  await mkdir(checkout, { recursive: true });
  return true;
}

/** What `lstat` says of `path`, or undefined when it cannot say (missing, or not reachable). */
function lstatOrUndefined(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** True when `checkout` is a folder itself, not a symlink to one (a maker may replace its checkout). */
export async function isRealFolder(checkout: string): Promise<boolean> {
  const stats = await lstat(checkout).catch(() => undefined);
  return stats?.isDirectory() === true;
}

async function assertRealFolder(checkout: string): Promise<void> {
  if (!(await isRealFolder(checkout))) {
    throw new Error(`the checkout ${checkout} is missing or is not a folder (replaced by a symlink?)`);
  }
}

/** The start of a regular file (never a FIFO or a device, which could block). */
async function readSmallFile(path: string): Promise<string | undefined> {
  const stats = await lstat(path).catch(() => undefined);
  if (!stats?.isFile()) return undefined;
  const handle = await open(path, "r").catch(() => undefined);
  if (!handle) return undefined;
  try {
    const buffer = Buffer.alloc(512);
    const { bytesRead } = await handle.read(buffer, 0, 512, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}
