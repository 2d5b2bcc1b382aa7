/**
 * `hook post-tool` (PostToolUse on Write, Edit, MultiEdit, NotebookEdit): the first write into the
 * checkout opens the work, in deferred mode, measured from HEAD. Writes into `.loopwright/` or outside
 * the checkout do not count. Never blocks.
 */
import { isAbsolute, relative, resolve, sep } from "node:path";
import type { HookContext } from "../hook-context.ts";
import { type HookOutput, passOn } from "../hook-io.ts";
import { stateFolderName } from "../hook-layout.ts";
import { headCommit } from "../review/changed-files.ts";
import { readHookState, updateHookState } from "../state/hook-state.ts";
import { openWork, seenBySession } from "../work/deferred-work.ts";

export async function postToolHook(context: HookContext): Promise<HookOutput> {
  const { layout, input } = context;
  if (!writesIntoCheckout(context)) return passOn();
  const current = readHookState(layout).work;
  if (current && seenBySession(current, input.session_id) === current) return passOn();
  const base = current ? current.base : await headCommit(layout.root);
  await updateHookState(layout, (state) => ({
    ...state,
    work: state.work
      ? seenBySession(state.work, input.session_id)
      : openWork(input.session_id ?? "", base, context.now),
  }));
  return passOn();
}

function writesIntoCheckout(context: HookContext): boolean {
  const toolInput = context.input.tool_input ?? {};
  const target = toolInput.file_path ?? toolInput.notebook_path;
  if (typeof target !== "string" || target === "") return true;
  const path = relative(context.layout.root, resolve(context.input.cwd ?? context.layout.root, target));
  if (path === "" || path === ".." || path.startsWith(`..${sep}`) || isAbsolute(path)) return false;
  return path !== stateFolderName && !path.startsWith(`${stateFolderName}/`);
}
