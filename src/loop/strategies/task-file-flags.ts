/**
 * The tamper screen of the task file on a maker's commit. What loopwright expects there is the list as
 * read before the first iteration with its own ticks applied; a task the file marks done that loopwright
 * has not ticked is a blocking flag (only loopwright ticks a task, once verified), and it stays one until
 * the maker undoes it; any other difference from the expected file is advisory, ruled by the verifier.
 * Pure.
 */

import { parseTaskList, tickTask } from "./task-list.ts";
import type { TasksState } from "./task-state.ts";

export interface TaskFileFlag {
  kind: "task-ticked-by-maker" | "tamper-file";
  file: string;
  detail: string;
}

/** The task file as loopwright left it: `original` (read at `tasks.sha`) with every completed task ticked. */
export function expectedTaskFile(tasks: TasksState, original: string): string {
  const completed = tasks.tasks
    .filter((task) => task.completed)
    .sort((left, right) => (left.completed?.iteration ?? 0) - (right.completed?.iteration ?? 0));
  return completed.reduce((text, task) => tickTask(tasks.file, text, task.id) ?? text, original);
}

export function taskFileFlags(
  tasks: TasksState,
  expected: string,
  actual: string | undefined,
): TaskFileFlag[] {
  const file = tasks.file;
  if (actual === expected) return [];
  if (actual === undefined)
    return [
      { kind: "tamper-file", file, detail: "the task file was deleted: it is loopwright's list of the work" },
    ];
  const parsed = parseTaskList(file, actual);
  const notDone = new Set(tasks.tasks.filter((task) => task.status !== "done").map((task) => task.id));
  const ticked = parsed.ok ? parsed.tasks.filter((task) => task.done && notDone.has(task.id)) : [];
  if (ticked.length > 0) {
    const named = ticked.map((task) => `${task.id} "${task.title}"`).join(", ");
    return [
      {
        kind: "task-ticked-by-maker",
        file,
        detail: `${named} marked done by the maker; only loopwright ticks a task, after the verifier approves it: undo the tick`,
      },
    ];
  }
  return [
    { kind: "tamper-file", file, detail: "the task file changed: it is loopwright's list of the work" },
  ];
}
