/** `logs <loop>` prints gate logs; `brief <loop>` prints the exact brief a maker was sent. */
import type { AppContext } from "../../app/app-context.ts";
import { getBrief } from "../../app/brief.ts";
import { listGateLogs, readGateLog } from "../../app/gate-logs.ts";
import { type GateLogList, maximumLogReadBytes } from "../../app/schemas/file-schemas.ts";
import { createAnswerRedactor, createLineRedactor, type Redact } from "../../core/redact.ts";
import { UsageError } from "../../errors.ts";
import { appContext, openSession, parseIterationOption } from "../session.ts";

/**
 * Prints the gate logs of one iteration: `--iteration 0` is the run on the base commit (the baseline);
 * without `--iteration`, the last iteration that ran its gates. An iteration without logs is named
 * with what happened to it. Logs of any size are printed whole, part by part, redacted on the way out
 * with the secrets of this process's environment, as the service redacts its answers: a log is written
 * redacted with the secrets the loop's controller knew, which need not be all of those known here (a
 * key set since, a log from elsewhere). Redacted line by line, so a secret across two parts is caught.
 */
export async function logsCommand(
  reference: string,
  options: { iteration?: string; gate?: string },
): Promise<number> {
  const session = await openSession();
  try {
    const context = await appContext(session);
    const iteration = parseIterationOption(options.iteration, 0);
    const list = await listGateLogs(context, reference, { iteration, gate: options.gate });
    const label = list.iteration === 0 ? "iteration 0 (the base commit)" : `iteration ${list.iteration}`;
    const redact = createAnswerRedactor();
    for (const log of list.logs) {
      process.stdout.write(`==> ${label} gate ${log.gate} (${log.phase}) ${log.logPath}\n`);
      // Only a regular file, never through a link: a log a maker replaced by a link to /dev/zero never ends.
      const ended = log.problem
        ? describeUnreadable(log, log.problem)
        : await printLog(context, list.loopId, list.iteration, log, redact);
      if (!ended.endsWith("\n")) process.stdout.write("\n");
    }
    return 0;
  } finally {
    await session.store.close();
  }
}

/** Prints the log part by part, redacted; returns its last text (to end the output with a newline). */
async function printLog(
  context: AppContext,
  loopId: string,
  iteration: number,
  log: GateLogList["logs"][number],
  redact: Redact,
): Promise<string> {
  let offset = 0;
  let last = "";
  const lines = createLineRedactor(redact);
  const print = (text: string) => {
    if (!text) return;
    process.stdout.write(text);
    last = text;
  };
  for (;;) {
    const part = await readGateLog(context, loopId, {
      iteration,
      gate: log.gate,
      phase: log.phase,
      offset,
      length: maximumLogReadBytes,
    }).catch((error: unknown) => {
      if (error instanceof UsageError) return error.message;
      throw error;
    });
    if (typeof part === "string") {
      // Unreadable from here on: what was read is still printed (redacted) before the problem.
      const rest = lines.flush();
      if (rest) process.stdout.write(rest.endsWith("\n") ? rest : `${rest}\n`);
      return describeUnreadable(log, part);
    }
    print(lines.push(part.text));
    if (part.complete || part.length === 0) {
      print(lines.flush());
      return last;
    }
    offset = part.nextOffset;
  }
}

/** Writes and returns the line that stands for a log that cannot be read. */
function describeUnreadable(log: GateLogList["logs"][number], problem: string): string {
  const text = log.missing
    ? `(log missing: ${log.logPath})\n`
    : `(log not readable: ${log.logPath}: ${problem})\n`;
  process.stdout.write(text);
  return text;
}

export async function briefCommand(reference: string, options: { iteration?: string }): Promise<number> {
  const session = await openSession();
  try {
    const iteration = parseIterationOption(options.iteration, 0);
    const brief = (await getBrief(await appContext(session), reference, { iteration })).brief;
    process.stdout.write(createAnswerRedactor()(brief));
    return 0;
  } finally {
    await session.store.close();
  }
}
