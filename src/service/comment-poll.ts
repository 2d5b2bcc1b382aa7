/**
 * The service's watch for `/loopwright` review comments: every `everyMs` (default a minute, in the
 * background so a slow forge never holds up the supervisor's tick) it checks the pull request of each
 * loop that stopped `verified` with one, for `finish.comments.watch` after it stopped (default a week).
 * New comments are recorded once each; a review request queues the loop (`loop_queued {command:
 * resume}`), and the supervisor runs its round like any queued loop, under its caps.
 */
import type { Actor, LoopEvent } from "../core/events.ts";
import { maxCommentRounds } from "../loop/comment-rounds.ts";
import { newPullRequestComments, recordPullRequestComments } from "../loop/pull-request-comments.ts";
import type { LoopState } from "../loop/state.ts";
import { readState } from "../loop/timeline.ts";
import type { Store } from "../store/store.ts";

/** Starts one poll when one is due and none is under way; never throws, never waits for the poll. */
export type CommentPoll = (now: number) => void;

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
  return (now) => {
    if (polling || now < dueAt) return;
    polling = true;
    dueAt = now + everyMs;
    pollOnce(options.store, now, log)
      .catch((error: unknown) => log(`comments: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        polling = false;
      });
  };
}

async function pollOnce(store: Store, now: number, log: (line: string) => void): Promise<void> {
  for (const loop of await store.listLoops()) {
    try {
      const { state, events } = await readState(store, loop);
      if (!watched(state, events, now)) continue;
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

/** A loop stopped verified with a pull request, within its watch window, that grants rounds. */
function watched(state: LoopState, events: LoopEvent[], now: number): boolean {
  if (state.status !== "stopped" || state.stopReason !== "verified") return false;
  if (!state.reviewComments.pullRequest || maxCommentRounds(state) === 0) return false;
  if (state.spec.strategy.kind !== "until-verified") return false;
  const stopped = events.findLast((event) => event.type === "loop_stopped");
  const window = state.spec.finish.comments?.watch ?? defaultWatchMs;
  return stopped !== undefined && now - Date.parse(stopped.at) <= window;
}
