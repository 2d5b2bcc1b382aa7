/**
 * The service's watch for `/loopwright` review comments: every `everyMs` (default a minute, in the
 * background so a slow forge never holds up the supervisor's tick) it checks the pull request of each
 * loop that stopped `verified` with one, for `finish.comments.watch` after it stopped (default a week).
 * New comments are recorded once each; a review request queues the loop (`loop_queued {command:
 * resume}`), and the supervisor runs its round like any queued loop, under its caps.
 *
 * It replays nothing: the supervisor hands it the loops' states its watch already keeps (loop-watch.ts),
 * and only a loop whose state passes the cheap checks (stopped `verified`, with a pull request, rounds
 * granted) has its events read, once per state, to find when it stopped; a store of a hundred loops of
 * thousands of events costs a pass over a hundred states each minute.
 */
import type { Actor } from "../core/events.ts";
import { maxCommentRounds } from "../loop/comment-rounds.ts";
import { newPullRequestComments, recordPullRequestComments } from "../loop/pull-request-comments.ts";
import type { LoopState } from "../loop/state.ts";
import type { LoopRecord, Store } from "../store/store.ts";

/** A loop and its state replayed up to its last event, as the supervisor's watch keeps them. */
export interface PolledLoop {
  loop: LoopRecord;
  state: LoopState;
}

/**
 * Starts one poll of `loops` when one is due and none is under way; never throws, never waits for the
 * poll. The states must be immutable values (a new object whenever an event is folded in).
 */
export type CommentPoll = (now: number, loops: readonly PolledLoop[]) => void;

const defaultEveryMs = 60_000;
const defaultWatchMs = 7 * 24 * 3_600_000;
const service: Actor = { via: "service", name: "serve" };

export function createCommentPoll(options: {
  store: Store;
  log?: (line: string) => void;
  everyMs?: number;
}): CommentPoll {
  const everyMs = options.everyMs ?? Number(process.env.LOOPWRIGHT_COMMENT_POLL_MS ?? defaultEveryMs);
  const log = options.log ?? (() => {});
  let dueAt = 0;
  let polling = false;
  /** When each candidate state's loop last stopped (ms), so an unchanged loop's events are read once. */
  const stoppedAt = new WeakMap<LoopState, number>();
  return (now, loops) => {
    if (polling || now < dueAt) return;
    polling = true;
    dueAt = now + everyMs;
    pollOnce(options.store, loops, stoppedAt, now, log)
      .catch((error: unknown) => log(`comments: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        polling = false;
      });
  };
}

async function pollOnce(
  store: Store,
  loops: readonly PolledLoop[],
  stoppedAt: WeakMap<LoopState, number>,
  now: number,
  log: (line: string) => void,
): Promise<void> {
  for (const { loop, state } of loops) {
    try {
      if (!candidate(state)) continue;
      let stopped = stoppedAt.get(state);
      if (stopped === undefined) {
        const events = await store.readEvents(loop.id);
        const last = events.findLast((event) => event.type === "loop_stopped");
        stopped = last ? Date.parse(last.at) : Number.NaN;
        stoppedAt.set(state, stopped);
      }
      const window = state.spec.finish.comments?.watch ?? defaultWatchMs;
      if (!(now - stopped <= window)) continue; // NaN (no loop_stopped read) is never watched
      const received = await newPullRequestComments(loop, state);
      const requests = await recordPullRequestComments(store, loop, state, received);
      if (requests === 0) continue;
      await store.appendEvent(loop.id, "loop_queued", { by: service, command: "resume" });
      log(
        `${loop.name}: ${requests} /loopwright review request${requests === 1 ? "" : "s"}: queued for a round`,
      );
    } catch (error) {
      log(`${loop.name}: comments not checked: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** A loop stopped verified with a pull request, whose spec grants rounds (its window is checked apart). */
function candidate(state: LoopState): boolean {
  if (state.status !== "stopped" || state.stopReason !== "verified") return false;
  if (!state.reviewComments.pullRequest || maxCommentRounds(state) === 0) return false;
  return state.spec.strategy.kind === "until-verified";
}
