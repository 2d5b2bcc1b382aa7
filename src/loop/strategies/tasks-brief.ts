/** The tasks strategy's part of the maker's brief: this iteration's task and its criteria, not the whole list. Pure. */
import type { TasksStrategy } from "../../core/strategy-spec.ts";
import type { LoopState } from "../state.ts";
import { currentTask } from "./task-state.ts";

export function tasksBrief(state: LoopState, strategy: TasksStrategy): string | undefined {
  const task = currentTask(state);
  const tasks = state.tasks?.tasks;
  if (!task || !tasks) return undefined;
  const position = tasks.indexOf(task) + 1;
  const criteria = task.criteria.length > 0 ? task.criteria : [`The task is done: ${task.title}`];
  const attempts = state.iterations.filter(
    (iteration) => iteration.task === task.id && iteration.ended,
  ).length;
  return [
    `## Your task: ${task.title}`,
    `Task ${task.id} (${position} of ${tasks.length} in ${strategy.file}${attempts > 0 ? `; attempt ${attempts + 1} of at most ${strategy.maxAttemptsPerTask}` : ""}). Do this task only; later tasks come in later iterations.`,
    "Acceptance criteria (the verifier rules on each, as the criterion-N gates):",
    ...criteria.map((criterion, index) => `- criterion-${index + 1}: ${criterion}`),
    `Do not edit ${strategy.file}: loopwright marks the task done there in its own commit once the verifier approves. A task ticked by you fails the iteration.`,
  ].join("\n");
}
