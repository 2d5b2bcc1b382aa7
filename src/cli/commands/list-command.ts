/** `ls`: loops with their status (queued ones with their place in the queue), iterations and stop reason. */
import { listLoops } from "../../app/list-loops.ts";
import { writeErr, writeOut } from "../output.ts";
import { currentRepository, openSession } from "../session.ts";

export async function listCommand(options: { all?: boolean; json?: boolean }): Promise<number> {
  const session = await openSession();
  try {
    const repoRoot = options.all ? undefined : await currentRepository();
    const { loops, warnings } = await listLoops({ ...session, repoRoot }, { repoRoot });
    // One damaged loop is named on stderr and listed as such; it never hides the others.
    for (const warning of warnings) writeErr(`loopwright: ${warning}\n`);
    if (options.json) {
      writeOut(`${JSON.stringify(loops, null, 2)}\n`);
      return 0;
    }
    if (loops.length === 0) {
      writeOut(repoRoot ? `no loops in ${repoRoot} (loopwright ls --all lists every loop)\n` : "no loops\n");
      return 0;
    }
    for (const row of loops) {
      const reason = row.stopDescription
        ? ` (${row.stopDescription})`
        : row.queuePosition
          ? ` (#${row.queuePosition} in the queue)`
          : "";
      const where = options.all ? `  ${row.repoRoot}` : "";
      writeOut(
        `${row.name.padEnd(24)} ${`${row.status}${reason}`.padEnd(30)} ${String(row.iterations).padStart(3)} it  $${row.costUsd.toFixed(2)}  ${row.id}${where}\n`,
      );
    }
    return 0;
  } finally {
    await session.store.close();
  }
}
