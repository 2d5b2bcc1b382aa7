/**
 * Which of the controller's events wait for the next flush to the disk. Every event survives the death
 * of the controller the moment it is appended (SQLite's WAL reaches the operating system at each
 * commit); a flush (fsync, 1–6 ms here) makes it survive a power cut too. The events below record steps
 * a resume simply redoes (a checkout, a commit it adopts, a screen, a gate run, the iteration's end
 * decided again from them), so losing the last few of them to a power cut costs only that work again:
 * they are carried to the disk by the next flushed event, which comes before anything that costs money
 * or leaves the machine (an agent turn starts or ends, a pull request is recorded) and when the loop
 * stops or the run ends. A power cut can never lose a
 * flushed event, nor leave a gap: what survives is the timeline up to some point.
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
