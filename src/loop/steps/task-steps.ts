/**
 * The IO of `strategy: tasks`: reading the task list from the loop's branch, and ticking a verified task
 * in loopwright's own commit (the maker's checkout gets the same file, so its next snapshot keeps the
 * tick). A tick commit made before a crash is adopted, never made twice.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { commitTree } from "../../git/commits.ts";
import { branchTip, moveBranch } from "../../git/loop-branch.ts";
import { fileAt, treeWithFile } from "../../git/tree-with-file.ts";
import type { RunContext } from "../run-context.ts";
import { parseTaskList, tickTask } from "../strategies/task-list.ts";
import { stopLoop } from "./finish-and-stop.ts";

export const taskTrailer = "Loopwright-Task";

export async function readTasks(context: RunContext): Promise<void> {
  const state = context.state();
  if (state.spec.strategy.kind !== "tasks") throw new Error("read_tasks outside strategy tasks");
  const file = state.spec.strategy.file;
  const sha = (await branchTip(context.loop.repoRoot, state.spec.branch)) ?? state.baseSha ?? "";
  const text = await fileAt(context.loop.repoRoot, sha, file);
  if (text === undefined)
    return stopLoop(context, "error", `tasks file ${file} is not in commit ${sha.slice(0, 10)}`);
  const parsed = parseTaskList(file, text);
  if (!parsed.ok) return stopLoop(context, "error", `tasks file ${file}: ${parsed.problem}`);
  await context.append("tasks_read", { file, format: parsed.format, sha, tasks: parsed.tasks });
}

export async function completeTask(context: RunContext, iteration: number, taskId: string): Promise<void> {
  // Loaded here, not at the top: the commit step is loaded after the maker's first turn has started.
  const { loopTrailer } = await import("./commit-and-screen.ts");
  const state = context.state();
  const list = state.tasks;
  if (!list) throw new Error("complete_task before the tasks were read");
  const { repoRoot } = context.loop;
  const branch = state.spec.branch;
  const tip = await branchTip(repoRoot, branch);
  if (!tip) throw new Error(`the loop's branch ${branch} is missing`);
  const text = (await fileAt(repoRoot, tip, list.file)) ?? "";
  const ticked = tickTask(list.file, text, taskId);
  let sha = tip;
  if (ticked !== undefined) {
    const tree = await treeWithFile(repoRoot, tip, list.file, ticked);
    const title = list.tasks.find((task) => task.id === taskId)?.title ?? taskId;
    sha = await commitTree(repoRoot, tree, tip, {
      message: `loopwright: ${context.loop.name} task ${taskId} done: ${title.replace(/\s+/g, " ").slice(0, 60)}`,
      trailers: { [loopTrailer]: context.loop.id, [taskTrailer]: taskId },
    });
    await moveBranch(repoRoot, branch, sha, tip);
  }
  await writeFile(join(context.makerWorktree, list.file), ticked ?? text);
  await context.append("task_completed", { iteration, taskId, sha });
}
