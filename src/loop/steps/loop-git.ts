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
