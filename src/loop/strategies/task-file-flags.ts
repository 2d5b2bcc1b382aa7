/**
 * The tamper screen of the task file, on one iteration's change (from the iteration's start, which holds
 * loopwright's own ticks, to the maker's commit): a task the maker marked done is a blocking flag (only
 * loopwright ticks a task, once verified); any other edit of the file is advisory, ruled by the verifier.
 * Pure.
 */
import { parseTaskList } from "./task-list.ts";

export interface TaskFileFlag {
  kind: "task-ticked-by-maker" | "tamper-file";
  file: string;
  detail: string;
}

export function taskFileFlags(
  file: string,
  before: string | undefined,
  after: string | undefined,
): TaskFileFlag[] {
  if (before === after) return [];
  if (after === undefined)
    return [
      { kind: "tamper-file", file, detail: "the task file was deleted: it is loopwright's list of the work" },
    ];
  const old = before === undefined ? undefined : parseTaskList(file, before);
  const now = parseTaskList(file, after);
  const wasOpen = new Set(old?.ok ? old.tasks.filter((task) => !task.done).map((task) => task.id) : []);
  const ticked = now.ok ? now.tasks.filter((task) => task.done && wasOpen.has(task.id)) : [];
  if (ticked.length > 0) {
    const named = ticked.map((task) => `${task.id} "${task.title}"`).join(", ");
    return [
      {
        kind: "task-ticked-by-maker",
        file,
        detail: `the maker marked ${named} done; only loopwright ticks a task, after the verifier approves it`,
      },
    ];
  }
  return [
    { kind: "tamper-file", file, detail: "the task file changed: it is loopwright's list of the work" },
  ];
}
