/**
 * `report <loop>`: the final report in Markdown (or its data with --json), redacted with the secrets of
 * this process's environment (gate tails, verdicts and the maker's claims quote tool output).
 */
import { getReportData, getReportMarkdown } from "../../app/loop-report.ts";
import { createAnswerRedactor } from "../../core/redact.ts";
import { appContext, openSession } from "../session.ts";

export async function reportCommand(reference: string, options: { json?: boolean }): Promise<number> {
  const session = await openSession();
  try {
    const context = await appContext(session);
    const redact = createAnswerRedactor();
    if (options.json) {
      process.stdout.write(redact(`${JSON.stringify(await getReportData(context, reference), null, 2)}\n`));
    } else {
      process.stdout.write(redact((await getReportMarkdown(context, reference)).markdown));
    }
    return 0;
  } finally {
    await session.store.close();
  }
}
