/** The tasks strategy's section of the report: every task, done (by which iteration, ticked in which commit), blocked, or open. Pure. */
import type { LoopState } from "../state.ts";

export function tasksReport(state: LoopState): string[] {
  const list = state.tasks;
  if (!list) return [];
  const done = list.tasks.filter((task) => task.status === "done").length;
  const lines = ["## Tasks", "", `${done} of ${list.tasks.length} tasks done in \`${list.file}\`.`, ""];
  lines.push("| task | status | iteration | attempts | tick commit |", "|---|---|---|---|---|");
  for (const task of list.tasks) {
    const attempts = state.iterations.filter(
      (iteration) => iteration.task === task.id && iteration.ended,
    ).length;
    const status =
      task.status === "blocked"
        ? `BLOCKED: ${task.blocked?.reason ?? ""}`
        : task.status === "done"
          ? task.completed
            ? "done"
            : "done before the loop"
          : "open";
    lines.push(
      `| ${task.id} ${task.title.replaceAll("|", "/")} | ${status} | ${task.completed?.iteration ?? "–"} | ${attempts} | ${task.completed ? `\`${task.completed.sha.slice(0, 10)}\`` : "–"} |`,
    );
  }
  return lines;
}
