/**
 * `hook close`: the user (or the agent, when the status lines suggest it) closes the work. The next stop
 * then runs every gate, the `on-close` ones included, and needs a passing review of the current code.
 * It writes the review request right away, so the reviewer can start before the stop asks for it.
 */
import type { HookContext } from "../hook-context.ts";
import { type HookOutput, tellUser } from "../hook-io.ts";
import { acceptanceCriteria, gatesToRun, loadHookSpec } from "../hook-spec.ts";
import { changeSnapshot } from "../review/changed-files.ts";
import { writeReviewRequest } from "../review/review-request.ts";
import { readHookState, updateHookState } from "../state/hook-state.ts";
import { openWork } from "../work/deferred-work.ts";

export async function closeHook(context: HookContext): Promise<HookOutput> {
  const { layout } = context;
  const spec = await loadHookSpec(layout);
  const work = readHookState(layout).work;
  const snapshot = await changeSnapshot(layout.root, work?.base);
  if (snapshot.files.length === 0) {
    await updateHookState(layout, ({ work: _closed, ...state }) => state);
    return tellUser("loopwright: nothing to close: no file changed.");
  }
  const sessionId = context.input.session_id ?? process.env.CLAUDE_CODE_SESSION_ID ?? "";
  await updateHookState(layout, (state) => ({
    ...state,
    work: { ...(state.work ?? openWork(sessionId, snapshot.base, context.now)), closing: true },
  }));
  if (snapshot.codeFiles.length > 0) await writeReviewRequest(layout, snapshot, acceptanceCriteria(spec));
  const gates = gatesToRun(spec, true).map((gate) => gate.id);
  const review =
    snapshot.codeFiles.length > 0
      ? `the ${context.naming.agentType} subagent must find no [CRITICAL] in the current code (${snapshot.codeFiles.length} changed files; request in ${layout.reviewRequest})`
      : "no review is needed (only prose changed)";
  return tellUser(
    `loopwright: closing the work. At the next stop ${gates.length ? `gates ${gates.join(", ")} must pass` : "no gate runs"} and ${review}.`,
  );
}
