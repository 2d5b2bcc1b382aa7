/** `schedules`: registered schedules with their next firing and latest firings; `--remove <name>` drops one. */
import { listScheduleViews, removeSchedule } from "../../app/schedules.ts";
import type { ScheduleView } from "../../service/schedules/list-schedules.ts";
import { cliActor } from "../cli-actor.ts";
import { currentRepository, openSession } from "../session.ts";
import { stripTerminalControls } from "../terminal-text.ts";

export async function schedulesCommand(options: {
  all?: boolean;
  json?: boolean;
  remove?: string;
}): Promise<number> {
  const session = await openSession();
  try {
    const repoRoot = options.all ? undefined : await currentRepository();
    const context = { store: session.store, home: session.home, repoRoot };
    if (options.remove !== undefined) {
      const removed = await removeSchedule(context, options.remove, cliActor());
      process.stdout.write(`${removed.message}\n`);
      return 0;
    }
    const views = await listScheduleViews(context);
    if (options.json) {
      process.stdout.write(`${JSON.stringify(views, null, 2)}\n`);
      return 0;
    }
    if (views.length === 0) {
      const where = repoRoot ? ` in ${repoRoot} (loopwright schedules --all lists every schedule)` : "";
      process.stdout.write(`no schedules${where}; loopwright run --detach registers a spec with schedule:\n`);
      return 0;
    }
    process.stdout.write(views.map((view) => describeSchedule(view, repoRoot === undefined)).join("\n"));
    return 0;
  } finally {
    await session.store.close();
  }
}

/** A schedule in a few lines: name and rule, next firing in its zone and UTC, latest firings. */
export function describeSchedule(view: ScheduleView, withRepository: boolean): string {
  const where = withRepository ? `  ${view.repoRoot}` : "";
  const lines = [`${view.name}  ${view.description}${where}`];
  if (view.problem) lines.push(`  damaged: ${view.problem}`);
  if (view.nextFiring) {
    const next = view.nextFiring;
    const utc = next.timezone === "UTC" ? "" : ` (${next.utc} UTC)`;
    lines.push(`  next firing  ${next.local} ${next.timezone}${utc}`);
  } else if (!view.problem) lines.push("  next firing  never");
  if (view.overdueSince) {
    lines.push(
      `  overdue since ${view.overdueSince.local} ${view.overdueSince.timezone}: is loopwright serve running?`,
    );
  }
  for (const firing of view.recentFirings) {
    const detail = firing.loopId ?? "";
    const reason = firing.reason
      ? `${detail ? "  " : ""}${stripTerminalControls(firing.reason.split("\n")[0])}`
      : "";
    lines.push(`  ${firing.time.local}  ${firing.outcome.padEnd(14)}  ${detail}${reason}`.trimEnd());
  }
  return `${lines.join("\n")}\n`;
}
