/**
 * The event types this loopwright can fold, at run time. A stored row of any other type (written by a
 * newer loopwright, or by hand) is set aside as damaged instead of breaking every reader of the store.
 * Typed as a record of every `EventType`, so adding an event type without listing it here fails tsc.
 */
import type { EventType } from "./events.ts";

const known: Record<EventType, true> = {
  loop_created: true,
  loop_queued: true,
  run_started: true,
  run_ended: true,
  processes_swept: true,
  engines_resolved: true,
  loop_prepared: true,
  setup_ran: true,
  steer_requested: true,
  steering_applied: true,
  pause_requested: true,
  cancel_requested: true,
  resume_requested: true,
  loop_paused: true,
  loop_resumed: true,
  loop_parked: true,
  loop_unparked: true,
  iteration_started: true,
  maker_started: true,
  maker_ended: true,
  commit_created: true,
  change_screened: true,
  gate_started: true,
  gate_ended: true,
  gate_interrupted: true,
  tamper_flagged: true,
  verdict_rejected: true,
  verifier_started: true,
  verifier_ended: true,
  iteration_ended: true,
  review_started: true,
  review_rejected: true,
  review_ended: true,
  replan_started: true,
  replan_ended: true,
  loop_finished: true,
  pull_request_recorded: true,
  review_comment_received: true,
  review_comment_answered: true,
  loop_stopped: true,
  ci_watch_started: true,
  ci_checks_recorded: true,
  ci_repair_started: true,
  tasks_read: true,
  task_completed: true,
  task_blocked: true,
  metric_measured: true,
  attempt_judged: true,
};

/** True for an event type this loopwright knows how to fold. */
export function isKnownEventType(type: string): type is EventType {
  return Object.hasOwn(known, type);
}
