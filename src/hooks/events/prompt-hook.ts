/**
 * `hook prompt` (UserPromptSubmit): counts the turn of the open work (exactly, under the state lock)
 * and puts two status lines before the answer through additionalContext: the repository, the files
 * changed and the turns since the work opened; then what the definition of done will ask and when, or,
 * past a threshold, a suggestion to close the work. It never blocks: the user's prompt always goes on.
 */
import type { HookContext } from "../hook-context.ts";
import { addContext, type HookOutput } from "../hook-io.ts";
import { loadHookSpec } from "../hook-spec.ts";
import { changedPaths } from "../review/changed-files.ts";
import { updateHookState } from "../state/hook-state.ts";
import { statusLines } from "../templates/status-lines.ts";
import { countTurn, reviewDue } from "../work/deferred-work.ts";

export async function promptHook(context: HookContext): Promise<HookOutput> {
  const { layout, input } = context;
  const state = await updateHookState(layout, (current) => ({
    ...current,
    totals: { ...current.totals, prompts: current.totals.prompts + 1 },
    ...(current.work ? { work: countTurn(current.work, input.session_id) } : {}),
  }));
  const spec = await loadHookSpec(layout);
  const { work } = state;
  const changed = work
    ? (await changedPaths(layout.root, work.base, context.status)).paths.length
    : undefined;
  const due = work
    ? reviewDue(work, { sessionId: input.session_id, now: context.now, limits: context.limits })
    : undefined;
  return addContext(
    "UserPromptSubmit",
    statusLines({
      repository: context.repository,
      ...(work ? { work } : {}),
      ...(changed !== undefined ? { changedFiles: changed } : {}),
      ...(due ? { due } : {}),
      gates: spec.gates,
      limits: context.limits,
      closeCommand: context.closeCommand,
      reviewerAgent: context.naming.agentType,
    }),
  );
}
