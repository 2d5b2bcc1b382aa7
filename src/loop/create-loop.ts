/**
 * Registers a new loop: its spec snapshot (the loop never re-reads the file), its repository, and its
 * base commit, recorded as the first event of its timeline.
 */
import { randomBytes } from "node:crypto";
import { eventSchemaVersion } from "../core/events.ts";
import type { LoadedSpec } from "../core/spec-file.ts";
import { LoopBusyError, UsageError } from "../errors.ts";
import { gitResult } from "../git/git.ts";
import { branchExists } from "../git/repository.ts";
import type { LoopRecord, Store } from "../store/store.ts";
import { crashPoint } from "./timeline.ts";

export async function createLoop(
  store: Store,
  loaded: LoadedSpec,
  repoRoot: string,
  baseSha: string,
): Promise<LoopRecord> {
  const { spec } = loaded;
  // Both git questions are asked at once, before the store is: their processes run while this process
  // goes on (the store's look-up, the foreground run's modules), and the answers are taken in the order
  // the checks are made. Asked of a loop that turns out to exist, they change nothing.
  const branchTaken = settled(branchExists(repoRoot, spec.branch));
  const startBranchAnswer = settled(startingBranch(repoRoot, spec.base));
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
  if (await taken(branchTaken)) {
    throw new UsageError(
      `branch ${spec.branch} already exists in ${repoRoot}; delete it or set \`branch:\` in the spec`,
    );
  }
  const loop = await store.createLoop({
    id: `${spec.name.slice(0, 24)}-${randomBytes(4).toString("hex")}`,
    name: spec.name,
    repoRoot,
    specPath: loaded.specPath,
    spec,
  });
  const startBranch = await taken(startBranchAnswer);
  const created = await store.appendEvent(
    loop.id,
    "loop_created",
    {
      name: spec.name,
      repoRoot,
      specPath: loaded.specPath,
      baseSha,
      branch: spec.branch,
      ...(startBranch ? { startBranch } : {}),
    },
    eventSchemaVersion,
  );
  crashPoint(created.seq);
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

/**
 * The branch the loop starts from, recorded at creation (the default base of its pull request; the user
 * may switch branches while it runs): `base` when it names a local branch, else the branch checked out.
 * Undefined on a detached HEAD.
 */
async function startingBranch(repoRoot: string, base: string): Promise<string | undefined> {
  if (base !== "HEAD") {
    const named = await gitResult(["rev-parse", "--verify", "--quiet", `refs/heads/${base}`], repoRoot);
    if (named.code === 0) return base;
  }
  const current = await gitResult(["symbolic-ref", "--quiet", "--short", "HEAD"], repoRoot, { trim: true });
  return current.code === 0 && current.stdout !== "" ? current.stdout : undefined;
}
