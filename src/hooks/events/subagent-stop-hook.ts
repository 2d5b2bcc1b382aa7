/**
 * `hook subagent-stop` (SubagentStop): when the reviewer subagent ends, its final message is its report.
 * The hook derives the verdict from the findings (any `[CRITICAL]` is a FAIL, whatever verdict line the
 * reviewer wrote; a message that is no well-formed report records nothing and is remembered, so that
 * the next stop asks again), stamps it with the content stamps of the code as it is when the reviewer ends (the
 * code it read), and writes both. It never blocks the reviewer; the user is told the outcome.
 */
import { readFileSync } from "../../files/node-fs.ts";
import { type HookContext, isReviewerAgent } from "../hook-context.ts";
import { type HookOutput, passOn, tellUser } from "../hook-io.ts";
import { changeSnapshot } from "../review/changed-files.ts";
import { describeCounts, judgeReport } from "../review/findings.ts";
import { type StoredVerdict, writeReview } from "../review/verdict-file.ts";
import { readHookState, updateHookState } from "../state/hook-state.ts";

export async function subagentStopHook(context: HookContext): Promise<HookOutput> {
  const { layout, input } = context;
  if (!isReviewerAgent(input.agent_type)) return passOn();
  const report = input.last_assistant_message ?? lastAssistantText(input.agent_transcript_path) ?? "";
  const judged = judgeReport(report);
  if (judged.kind === "invalid") {
    await updateHookState(layout, (state) => ({
      ...state,
      invalidReport: { at: context.now.toISOString(), why: judged.why },
    }));
    return tellUser(
      `loopwright: the reviewer's final message is no valid report (${judged.why}); no review was recorded, and the next stop asks for the review again.`,
    );
  }
  // The reviewer read the files as they are now: its verdict is about the code as it is now.
  const snapshot = await changeSnapshot(layout.root, readHookState(layout).work?.base);
  const stamps = { all: snapshot.all, code: snapshot.code };
  let verdict: StoredVerdict | undefined;
  // Written under the state lock, with its hash kept in the state: only this file is believed later.
  await updateHookState(layout, ({ invalidReport: _cleared, ...state }) => {
    const written = writeReview(layout, {
      report,
      derived: judged.derived,
      stamps,
      agentType: input.agent_type ?? "",
      ...(input.session_id ? { sessionId: input.session_id } : {}),
      now: context.now,
    });
    verdict = written.verdict;
    return {
      ...state,
      verdictSha256: written.verdictSha256,
      totals: { ...state.totals, reviews: state.totals.reviews + 1 },
    };
  });
  if (!verdict) throw new Error("the review was not recorded");
  return tellUser(
    `loopwright: review recorded: ${verdict.verdict} (${describeCounts(verdict.counts)}); report in ${layout.report}.`,
  );
}

/** The text of the last assistant message in a transcript (JSON lines), or undefined. */
function lastAssistantText(transcriptPath: string | undefined): string | undefined {
  if (!transcriptPath) return undefined;
  let lines: string[];
  try {
    lines = readFileSync(transcriptPath, "utf8").trim().split("\n");
  } catch {
    return undefined;
  }
  for (const line of lines.reverse()) {
    try {
      const entry = JSON.parse(line) as { type?: string; message?: { content?: unknown } };
      if (entry.type !== "assistant") continue;
      const content = entry.message?.content;
      const text = Array.isArray(content)
        ? content
            .filter((part): part is { type: string; text: string } => part?.type === "text")
            .map((part) => part.text)
            .join("\n")
        : typeof content === "string"
          ? content
          : "";
      if (text.trim() !== "") return text;
    } catch {
      // A line that is not JSON: skip it.
    }
  }
  return undefined;
}
