/**
 * `strategy: tasks`, one requirement per iteration, as a policy. Before the first iteration the list is
 * read from the loop's branch; each iteration works on the first open task, whose acceptance criteria
 * the verifier rules on as agent-checks; a verified iteration is followed by loopwright's tick commit,
 * then the next task. The loop finishes `verified` when every task is done. A task that fails
 * `maxAttemptsPerTask` times stops the loop `no_progress` naming it, or with `onStuck: skip` is
 * marked blocked (and the loop, once nothing is open, stops `no_progress` listing what is blocked). Pure.
 */
import type { TasksStrategy } from "../../core/strategy-spec.ts";
import type { Action } from "../decide.ts";
import type { IterationState, LoopState } from "../state.ts";
import { lastCommit, type StrategyPolicy, untilVerified } from "./strategy.ts";
import { currentTask, type TaskRecord } from "./task-state.ts";
import { tasksBrief } from "./tasks-brief.ts";
import { tasksReport } from "./tasks-report.ts";

export function tasksPolicy(strategy: TasksStrategy): StrategyPolicy {
  return {
    ...untilVerified,
    afterIteration: (state, iteration) => afterIteration(state, iteration),
    finalCommit: (state) => {
      // loopwright's tick of the last task follows the verified commit.
      const last = state.iterations.at(-1);
      const tick = state.tasks?.tasks.find((task) => last && task.completed?.iteration === last.number);
      return tick?.completed?.sha ?? lastCommit(state);
    },
    beforeIteration: (state) => beforeIteration(strategy, state),
    briefSection: (state) => tasksBrief(state, strategy),
    verifiedMessage: (state, iteration) =>
      `every task in ${strategy.file} is done (${state.tasks?.tasks.length ?? 0}), the last at iteration ${iteration.number}`,
    reportSection: (state) => tasksReport(state),
  };
}

function afterIteration(state: LoopState, iteration: IterationState): Action | "continue" | undefined {
  if (iteration.ended?.outcome !== "verified") return undefined;
  const task = state.tasks?.tasks.find((candidate) => candidate.id === iteration.task);
  if (task && task.status === "open")
    return { kind: "complete_task", iteration: iteration.number, taskId: task.id };
  if (currentTask(state)) return "continue";
  return blockedStop(state);
}

function beforeIteration(strategy: TasksStrategy, state: LoopState): Action | undefined {
  if (!state.tasks) return { kind: "read_tasks" };
  const task = currentTask(state);
  if (!task) return blockedStop(state) ?? { kind: "stop", reason: "verified", message: "every task is done" };
  const attempts = failedAttempts(state, task);
  if (attempts < strategy.maxAttemptsPerTask) return undefined;
  const reason = `task ${task.id} "${task.title}" failed ${attempts} attempts (maxAttemptsPerTask ${strategy.maxAttemptsPerTask})`;
  if (strategy.onStuck === "skip")
    return {
      kind: "block_task",
      iteration: state.iterations.at(-1)?.number ?? 0,
      taskId: task.id,
      attempts,
      reason,
    };
  return { kind: "stop", reason: "no_progress", message: reason };
}

/** Ended iterations on `task` that counted and did not verify it. */
function failedAttempts(state: LoopState, task: TaskRecord): number {
  return state.iterations.filter(
    (iteration) =>
      iteration.task === task.id &&
      iteration.ended &&
      iteration.ended.outcome !== "verified" &&
      iteration.ended.outcome !== "infra_error",
  ).length;
}

/** With nothing left open: a stop naming the blocked tasks, or `undefined` when none is blocked. */
function blockedStop(state: LoopState): Action | undefined {
  const blocked = state.tasks?.tasks.filter((task) => task.status === "blocked") ?? [];
  if (blocked.length === 0) return undefined;
  const done = state.tasks?.tasks.filter((task) => task.status === "done").length ?? 0;
  return {
    kind: "stop",
    reason: "no_progress",
    message: `${done} of ${state.tasks?.tasks.length} tasks done; blocked: ${blocked.map((task) => `${task.id} "${task.title}"`).join(", ")}`,
  };
}
