/**
 * The task list of a `strategy: tasks` loop as its timeline says it stands: read once (`tasks_read`),
 * then each task done (`task_completed`, loopwright's tick commit) or blocked (`task_blocked`). The
 * current task's acceptance criteria are the spec's `criterion-N` agent-check gates while it is being
 * worked on, so the brief, the verifier and the report see them like any gate. Pure.
 */

import { criterionGate, criterionGatePrefix } from "../../core/criterion-gate.ts";
import type { LoopEvent, TaskEntry } from "../../core/events.ts";
import type { GateSpec } from "../../core/spec.ts";
import type { LoopState } from "../state.ts";

export interface TaskRecord extends TaskEntry {
  status: "open" | "done" | "blocked";
  /** The iteration that did it, and loopwright's tick commit. */
  completed?: { iteration: number; sha: string };
  blocked?: { iteration: number; attempts: number; reason: string };
}

export interface TasksState {
  file: string;
  /** The commit the list was read from. */
  sha: string;
  format: string;
  tasks: TaskRecord[];
}

/** The first task neither done nor blocked: the one the next iteration works on. */
export function currentTask(state: LoopState): TaskRecord | undefined {
  return state.tasks?.tasks.find((task) => task.status === "open");
}

/** The spec's gates with the criteria of `task` as `criterion-N` agent-checks (none without a task). */
export function gatesForTask(gates: readonly GateSpec[], task: TaskEntry | undefined): GateSpec[] {
  const own = gates.filter((gate) => !gate.id.startsWith(criterionGatePrefix));
  if (!task) return own;
  const criteria = task.criteria.length > 0 ? task.criteria : [`The task is done: ${task.title}`];
  return [
    ...own,
    ...criteria.map((assert, index) => criterionGate(`${criterionGatePrefix}${index + 1}`, assert)),
  ];
}

/** The state after a task event, or after `iteration_started` of a tasks loop (which takes the current task). */
export function applyTaskEvent(state: LoopState, event: LoopEvent): LoopState {
  switch (event.type) {
    case "tasks_read":
      return {
        ...state,
        tasks: {
          file: event.data.file,
          sha: event.data.sha,
          format: event.data.format,
          tasks: event.data.tasks.map((task) => ({ ...task, status: task.done ? "done" : "open" })),
        },
      };
    case "iteration_started": {
      const task = currentTask(state);
      if (!task) return state;
      const iterations = state.iterations.map((iteration) =>
        iteration.number === event.data.iteration ? { ...iteration, task: task.id } : iteration,
      );
      return { ...state, iterations, spec: { ...state.spec, gates: gatesForTask(state.spec.gates, task) } };
    }
    case "task_completed":
    case "task_blocked": {
      if (!state.tasks) return state;
      const data = event.data;
      const tasks = state.tasks.tasks.map((task): TaskRecord => {
        if (task.id !== data.taskId) return task;
        return "sha" in data
          ? { ...task, status: "done", done: true, completed: { iteration: data.iteration, sha: data.sha } }
          : {
              ...task,
              status: "blocked",
              blocked: { iteration: data.iteration, attempts: data.attempts, reason: data.reason },
            };
      });
      // A new task is progress: no-progress fingerprints are per task.
      return {
        ...state,
        tasks: { ...state.tasks, tasks },
        spec: { ...state.spec, gates: gatesForTask(state.spec.gates, undefined) },
        fingerprintsSinceSteer: [],
        repeatsSinceSteer: 0,
      };
    }
    default:
      return state;
  }
}
