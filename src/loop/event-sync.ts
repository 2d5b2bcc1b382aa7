/**
 * Which of the controller's events wait for the next flush to the disk. Every event survives the death
 * of the controller the moment it is appended (SQLite's WAL reaches the operating system at each
 * commit); a flush (fsync, 1–6 ms here) makes it survive a power cut too. The events below record steps
 * a resume simply redoes (a checkout, a commit it adopts, a screen, a gate run, the iteration's end
 * decided again from them), so losing the last few of them to a power cut costs only that work again:
 * they are carried to the disk by the next flushed event: an agent turn starting or ending (before any
 * money is spent), a pull request recorded, the loop stopping, the run ending. One step leaves the
 * machine before that: the push of a verified commit follows an unflushed `iteration_ended`. After a
 * power cut there, resume grades the same commit again and pushes it again, which changes nothing on
 * the remote (the pull request is found, not opened twice). A power cut can never lose a flushed event,
 * nor leave a gap: what survives is the timeline up to some point. Ids a reader saw are never handed out
 * again (the store reserves them: sqlite-store.ts, `reservedIdGap`).
 */
import type { EventType } from "../core/events.ts";

const flushedLater: ReadonlySet<EventType> = new Set<EventType>([
  "run_started",
  "processes_swept",
  "engines_resolved",
  "loop_prepared",
  "setup_ran",
  "iteration_started",
  "commit_created",
  "change_screened",
  "gate_started",
  "gate_ended",
  "gate_interrupted",
  "iteration_ended",
]);

/** True when the controller may append `type` without flushing the disk (see above). */
export function defersSync(type: EventType): boolean {
  return flushedLater.has(type);
}
