/**
 * Registers a new loop: its spec snapshot (the loop never re-reads the file), its repository, and its
 * base commit, recorded as the first event of its timeline.
 */
import { randomBytes } from "node:crypto";
import { eventSchemaVersion } from "../core/events.ts";
import type { LoadedSpec } from "../core/spec-file.ts";
import { LoopBusyError, UsageError } from "../errors.ts";
import { git, gitResult } from "../git/git.ts";
import { localBranchesFromFiles } from "../git/local-branch-files.ts";
import type { LoopRecord, Store } from "../store/store.ts";
import { crashPoint } from "./timeline.ts";

export async function createLoop(
  store: Store,
  loaded: LoadedSpec,
  repoRoot: string,
  baseSha: string,
): Promise<LoopRecord> {
  const { spec } = loaded;
  // Whether the loop's branch is taken and which branch the loop starts from: read from git's files in
  // the usual case, else asked of git in one process, before the store is: it runs while this process
  // goes on (the store's look-up, the foreground run's modules), and the answers are taken in the order
  // the checks are made. Asked of a loop that turns out to exist, it changes nothing.
  const fromFiles = localBranchesFromFiles(
    repoRoot,
    spec.base === "HEAD" ? [spec.branch] : [spec.branch, spec.base],
  );
  const branchesAnswer = settled(
    fromFiles
      ? Promise.resolve({ names: fromFiles.existing, current: fromFiles.head })
      : localBranches(repoRoot),
  );
  const existing = await store.findLoop(spec.name, repoRoot);
  if (existing) {
    const holder = await store.lockHolder(existing.id);
    if (holder) {
      throw new LoopBusyError(
        `loop ${spec.name} is already running (pid ${holder.pid} on ${holder.host}) in ${repoRoot}`,
      );
    }
    throw new UsageError(
      `a loop named ${spec.name} already exists in ${repoRoot}; use \`loopwright resume ${spec.name}\`, or \`loopwright rm ${spec.name}\` first`,
    );
  }
  const branches = await taken(branchesAnswer);
  if (branches.names.has(spec.branch)) {
    throw new UsageError(
      `branch ${spec.branch} already exists in ${repoRoot}; delete it or set \`branch:\` in the spec`,
    );
  }
  const startBranch = await startingBranch(repoRoot, spec.base, branches);
  // The loop and its first event in one transaction: one flush to the disk, and never a loop without it.
  const { loop, event } = await store.createLoopWithEvent(
    {
      id: `${spec.name.slice(0, 24)}-${randomBytes(4).toString("hex")}`,
      name: spec.name,
      repoRoot,
      specPath: loaded.specPath,
      spec,
    },
    {
      type: "loop_created",
      data: {
        name: spec.name,
        repoRoot,
        specPath: loaded.specPath,
        baseSha,
        branch: spec.branch,
        ...(startBranch ? { startBranch } : {}),
      },
      version: eventSchemaVersion,
    },
  );
  crashPoint(event.seq);
  return loop;
}

/** A promise whose rejection is kept for `taken` (no unhandled rejection when it is never taken). */
function settled<T>(promise: Promise<T>): Promise<{ value: T } | { error: unknown }> {
  return promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
}

/** The value `settled` kept, or its error thrown now. */
async function taken<T>(outcome: Promise<{ value: T } | { error: unknown }>): Promise<T> {
  const result = await outcome;
  if ("error" in result) throw result.error;
  return result.value;
}

/** The repository's local branches (names under `refs/heads/`) and the one its HEAD names, if any. */
interface LocalBranches {
  /** Local branches: every one (from git), or those of the names asked (from the files). */
  names: ReadonlySet<string>;
  /**
   * The branch checked out in `repoRoot`; undefined when detached, or (from git) when it has no commit
   * yet: `startingBranch` then asks git for its name.
   */
  current?: string | undefined;
}

/**
 * Every local branch and the one checked out, from ONE git process (`for-each-ref`, where `show-ref`,
 * `rev-parse` and `symbolic-ref` ran one after another). Names are compared whole (a pattern would also
 * match the branches below a name).
 */
async function localBranches(repoRoot: string): Promise<LocalBranches> {
  const listing = await git(["for-each-ref", "--format=%(HEAD)%(refname)", "refs/heads/"], repoRoot);
  const names = new Set<string>();
  let current: string | undefined;
  for (const line of listing.split("\n")) {
    // `%(HEAD)` is `*` for the branch HEAD names, a space for every other.
    const refName = line.slice(1);
    if (!refName.startsWith("refs/heads/")) continue;
    const name = refName.slice("refs/heads/".length);
    names.add(name);
    if (line.startsWith("*")) current = name;
  }
  return { names, ...(current !== undefined ? { current } : {}) };
}

/**
 * The branch the loop starts from, recorded at creation (the default base of its pull request; the user
 * may switch branches while it runs): `base` when it names a local branch, else the branch checked out.
 * Undefined on a detached HEAD. The listing names the checked-out branch only once it has a commit: an
 * unborn one (HEAD on an orphan branch, the base elsewhere) is asked of git, as is a detached HEAD.
 */
async function startingBranch(
  repoRoot: string,
  base: string,
  branches: LocalBranches,
): Promise<string | undefined> {
  if (base !== "HEAD" && branches.names.has(base)) return base;
  if (branches.current !== undefined) return branches.current;
  const current = await gitResult(["symbolic-ref", "--quiet", "--short", "HEAD"], repoRoot, { trim: true });
  return current.code === 0 && current.stdout !== "" ? current.stdout : undefined;
}
