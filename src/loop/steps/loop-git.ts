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

/**
 * The maker's checkout as `prepare` has just created it from nothing on the loop's new branch at the base
 * (no setup ran in it), by the commit it holds: the first maker turn of this run finds there exactly the
 * files and the fresh `.git` it would make, and nothing of an earlier turn to keep, so it needs no snapshot.
 * Kept only while the steps in between run nothing there: the base gates (in the gates' checkout) and the
 * iteration's start (which only reads LESSONS.md); any other step drops it (`keepsPreparedMakerCheckout`).
 * Held in this process's memory only: a controller that died leaves nothing, and the next one snapshots.
 */
const preparedMakerCheckouts = new WeakMap<RunContext, string>();

/** Called by `prepare` once it has created the maker's checkout at `sha`: see `preparedMakerCheckouts`. */
export function handPreparedMakerCheckout(context: RunContext, sha: string): void {
  preparedMakerCheckouts.set(context, sha);
}

/**
 * The commit the maker's checkout holds as `prepare` created it, for the maker turn about to start (and
 * never again); undefined unless the steps since that `prepare` all kept it.
 */
export function takePreparedMakerCheckout(context: RunContext): string | undefined {
  const sha = preparedMakerCheckouts.get(context);
  preparedMakerCheckouts.delete(context);
  return sha;
}

/** Drops what `prepare` handed to the maker's first turn (a step that may touch its checkout is next). */
export function dropPreparedMakerCheckout(context: RunContext): void {
  preparedMakerCheckouts.delete(context);
}

/**
 * The gates' checkout of the commit being made, begun by the commit step as soon as the commit's tree is
 * known: it runs while the commit is made, its diffs read and the change screened, none of which touches
 * the gates' checkout or its index. `made` resolves true once the checkout holds `sha` (its `.git`
 * included), false when it failed (the gate step then checks out as it would have). Handed to the gate
 * step that comes right after the screen, and to no other: every other step waits for it to end first and
 * drops it, so that nothing else ever runs in the gates' checkout alongside it.
 */
interface GateCheckoutAhead {
  sha: Promise<string>;
  made: Promise<boolean>;
}

const gateCheckoutsAhead = new WeakMap<RunContext, GateCheckoutAhead>();

/** Called by the commit step once the commit's tree is known: see `GateCheckoutAhead`. */
export function handGateCheckoutAhead(
  context: RunContext,
  sha: Promise<string>,
  made: Promise<boolean>,
): void {
  gateCheckoutsAhead.set(context, { sha: sha.catch(() => ""), made: made.catch(() => false) });
}

/**
 * Whether the gates' checkout made ahead holds `sha`, for the gate step about to check it out (and never
 * again): waits for it to end. False when none was made ahead, it failed, or it is of another commit.
 */
export async function takeGateCheckoutAhead(context: RunContext, sha: string): Promise<boolean> {
  const ahead = gateCheckoutsAhead.get(context);
  gateCheckoutsAhead.delete(context);
  if (!ahead) return false;
  const made = await ahead.made;
  return made && (await ahead.sha) === sha;
}

/** Waits for the gates' checkout made ahead (if one is under way) to end, and drops it. Never rejects. */
export async function dropGateCheckoutAhead(context: RunContext): Promise<void> {
  const ahead = gateCheckoutsAhead.get(context);
  gateCheckoutsAhead.delete(context);
  await ahead?.made;
}

/**
 * The maker's checkout listed against its private index (`listPendingFiles`), begun by `start_iteration`
 * (which only reads LESSONS.md there) for the maker turn right after it, whose snapshot would run the same
 * listing first. Handed to that turn only; any other step waits for it to end and drops it.
 */
const makerListingsAhead = new WeakMap<RunContext, Promise<{ listing: string } | undefined>>();

/** Called by `start_iteration` as it begins: see `makerListingsAhead`. */
export function handMakerListingAhead(
  context: RunContext,
  listing: Promise<{ listing: string } | undefined>,
): void {
  makerListingsAhead.set(
    context,
    listing.catch(() => undefined),
  );
}

/** The listing begun by the step before (see `makerListingsAhead`), for the maker turn about to start. */
export function takeMakerListingAhead(context: RunContext): Promise<{ listing: string } | undefined> {
  const listing = makerListingsAhead.get(context);
  makerListingsAhead.delete(context);
  return listing ?? Promise.resolve(undefined);
}
