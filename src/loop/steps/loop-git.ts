/**
 * The loop's git as the steps use it: the private git directory in the loop's state folder (opened once
 * per run), and the names of the checkouts' private indexes.
 */
import { join } from "node:path";
import { type LoopRepository, openLoopRepository } from "../../git/loop-repository.ts";
import type { RunContext } from "../run-context.ts";

export const makerIndex = "maker";
export const gatesIndex = "gates";

const opened = new WeakMap<RunContext, Promise<LoopRepository>>();

/** The loop's private git, created on first use. */
export function loopRepositoryOf(context: RunContext): Promise<LoopRepository> {
  let repository = opened.get(context);
  if (!repository) {
    repository = openLoopRepository(
      context.loop.repoRoot,
      join(context.layout.loopDirectory(context.loop.id), "git"),
    );
    opened.set(context, repository);
    repository.catch(() => opened.delete(context));
  }
  return repository;
}

/**
 * The checkouts `prepare` has just created from nothing (no setup ran in them), each with the commit it
 * holds: until the next step has started, nothing has run in them, so that step (the base gates) finds
 * the files it would check out already there. Handed to the step right after prepare, and to no later one.
 */
const preparedCheckouts = new WeakMap<RunContext, ReadonlyMap<string, string>>();

/** Called by `prepare` once its checkouts are made: see `preparedCheckouts`. */
export function handPreparedCheckouts(context: RunContext, checkouts: ReadonlyMap<string, string>): void {
  preparedCheckouts.set(context, checkouts);
}

/**
 * What `prepare` handed on, for the step about to start (and never again): checkout → the commit it
 * holds untouched. Empty unless the previous step was a `prepare` that created checkouts.
 */
export function takePreparedCheckouts(context: RunContext): ReadonlyMap<string, string> {
  const checkouts = preparedCheckouts.get(context) ?? new Map<string, string>();
  preparedCheckouts.delete(context);
  return checkouts;
}
