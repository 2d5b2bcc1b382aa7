/** `report <loop>`: the final report in Markdown (or its data with --json). */
import { getReportData, getReportMarkdown } from "../../app/loop-report.ts";
import { appContext, openSession } from "../session.ts";

export async function reportCommand(reference: string, options: { json?: boolean }): Promise<number> {
  const session = await openSession();
  try {
    const context = await appContext(session);
    if (options.json) {
      process.stdout.write(`${JSON.stringify(await getReportData(context, reference), null, 2)}\n`);
    } else {
      process.stdout.write((await getReportMarkdown(context, reference)).markdown);
    }
    return 0;
  } finally {
    await session.store.close();
  }
}
