/**
 * `loopwright hook <event>`: Claude Code hook mode's entry, reached from bin/loopwright.js without the
 * CLI framework so that a hook that runs no gate starts fast. Events: `stop`, `subagent-stop`,
 * `prompt`, `post-tool`, `pre-tool` (each reads the hook's JSON on stdin), `close` (typed by a user or the agent)
 * and `check` (the launcher test `init claude` runs).
 *
 * Whatever happens it prints one JSON object and returns exit code 0. It lets everything pass at once
 * inside a loop's engine session (LOOPWRIGHT_ENGINE_SESSION=1), outside a git checkout, in a checkout
 * without loop.yaml at its root (hook mode not set up there; but where it was installed, every prompt
 * and stop say that nothing is checked), when `.loopwright/off` exists (the kill switch, said on every
 * prompt), and for the plugin where the project's own hooks are installed (so each hook runs once).
 * An internal failure lets Claude go on and tells the user so with `systemMessage`.
 */

import { basename } from "node:path";
import { appendFileSync, existsSync, readFileSync } from "../files/node-fs.ts";
import type { GitResult } from "../git/git.ts";
import { type HookContext, type HookHandler, reviewerAgentName } from "./hook-context.ts";
import {
  addContext,
  type HookInput,
  type HookOutput,
  passOn,
  readHookInput,
  tellUser,
  writeHookOutput,
} from "./hook-io.ts";
import { findCheckoutRoot, type HookLayout, hookLayout } from "./hook-layout.ts";
import {
  discardLauncherStatus,
  type LauncherStatus,
  startStatus,
  takeLauncherStatus,
} from "./review/status-process.ts";
import {
  hookOffContext,
  hookOffMessage,
  internalFailureMessage,
  specMissingMessage,
} from "./templates/hook-messages.ts";
import { hookLimits } from "./work/deferred-work.ts";

/** Set by the agent-CLI engines in every engine session (see run-cli-turn.ts). */
const engineSessionVariable = "LOOPWRIGHT_ENGINE_SESSION";
/** Set to `plugin` by the plugin's launcher. */
const hookSourceVariable = "LOOPWRIGHT_HOOK_SOURCE";
const notSetUpMessage = "loopwright: hook mode is not set up here (no loop.yaml).";

const handlers: Record<string, () => Promise<HookHandler>> = {
  stop: async () => (await import("./events/stop-hook.ts")).stopHook,
  "subagent-stop": async () => (await import("./events/subagent-stop-hook.ts")).subagentStopHook,
  prompt: async () => (await import("./events/prompt-hook.ts")).promptHook,
  "post-tool": async () => (await import("./events/post-tool-hook.ts")).postToolHook,
  "pre-tool": async () => (await import("./events/pre-tool-hook.ts")).preToolHook,
  close: async () => (await import("./events/close-hook.ts")).closeHook,
};

/** Whether `event` is one `runHook` answers (not one it calls unknown): bin/loopwright.js keeps code caches for these alone. */
export function isHookEvent(event: string): boolean {
  return event === "check" || Object.hasOwn(handlers, event);
}

/** Whether the last answer `runHook` printed went out whole through blocking writes (see `writeHookOutput`). */
let answerWritten = false;

/**
 * True once `runHook` has printed its answer and all of it went out through blocking writes: nothing
 * of it waits in a stream, so ending the process at once loses no byte of it (bin/loopwright.js).
 */
export function hookAnswerWritten(): boolean {
  return answerWritten;
}

/** Runs one hook event; always resolves 0 after printing exactly one JSON object on stdout. */
export async function runHook(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const event = argv[0] ?? "";
  const launched = takeLauncherStatus(env);
  let layout: HookLayout | undefined;
  let output: HookOutput;
  try {
    if (event === "check") {
      output = { systemMessage: `loopwright hook mode runs on Node.js ${process.version}` };
    } else if (!(event in handlers)) {
      output = tellUser(
        `loopwright hook: unknown event "${event}" (known: ${Object.keys(handlers).join(", ")}); nothing was checked.`,
      );
    } else {
      const input: HookInput = event === "close" ? {} : await readHookInput();
      if (env[engineSessionVariable] === "1") {
        output = passOn();
      } else {
        const root = findCheckoutRoot(input.cwd ?? env.CLAUDE_PROJECT_DIR ?? process.cwd());
        layout = root ? hookLayout(root) : undefined;
        output = await dispatch(event, input, layout, env, launched);
      }
    }
  } catch (error) {
    output = tellUser(
      internalFailureMessage(event, describeFailure(error), logFailure(layout, event, error)),
    );
  }
  discardLauncherStatus(launched);
  answerWritten = writeHookOutput(output);
  return 0;
}

/** The answer for a checkout (or none): step aside, say why nothing can be checked, or run the handler. */
async function dispatch(
  event: string,
  input: HookInput,
  layout: HookLayout | undefined,
  env: NodeJS.ProcessEnv,
  launched: LauncherStatus | undefined,
): Promise<HookOutput> {
  if (!layout) return event === "close" ? tellUser(notSetUpMessage) : passOn();
  // Plugin and project both installed: the project's hooks run, the plugin's step aside (each runs once).
  if (env[hookSourceVariable] === "plugin") {
    const { projectHooksInstalled } = await import("./install/install-markers.ts");
    if (projectHooksInstalled(layout.root)) return passOn();
  }
  const said = event === "prompt" || event === "stop";
  if (!existsSync(layout.spec)) {
    if (event === "close") return tellUser(notSetUpMessage);
    if (!said) return passOn();
    const { hookModeInstalled } = await import("./install/install-markers.ts");
    return (await hookModeInstalled(layout)) ? tellUser(specMissingMessage(layout.spec)) : passOn();
  }
  if (existsSync(layout.off)) {
    if (event === "close") return tellUser(`loopwright: hook mode is off (${layout.off}).`);
    if (event !== "prompt") return passOn();
    return { ...addContext("UserPromptSubmit", hookOffContext), ...tellUser(hookOffMessage(layout.off)) };
  }
  // git reads the working tree while the handler's modules load (the stop always needs it), unless the
  // launcher started it already (then its pipe is read when the handler awaits the status).
  const status =
    event === "stop" || (event === "prompt" && workIsOpen(layout))
      ? startStatus(layout.root, launched)
      : undefined;
  if (status === undefined) discardLauncherStatus(launched);
  return (await handlers[event]())(contextFor(input, layout, env, status));
}

/** Whether the state names open work, read without the lock: a guess that only decides when git starts. */
function workIsOpen(layout: HookLayout): boolean {
  try {
    return (JSON.parse(readFileSync(layout.state, "utf8")) as { work?: unknown }).work !== undefined;
  } catch {
    return false;
  }
}

function contextFor(
  input: HookInput,
  layout: HookLayout,
  env: NodeJS.ProcessEnv,
  status: PromiseLike<GitResult> | undefined,
): HookContext {
  const launcher = env.LOOPWRIGHT_HOOK_LAUNCHER;
  return {
    ...(status ? { status } : {}),
    input,
    layout,
    now: new Date(),
    limits: hookLimits(env),
    naming: { agentType: env.LOOPWRIGHT_REVIEWER_AGENT || reviewerAgentName },
    closeCommand: launcher ? `${launcher} close` : "loopwright hook close",
    repository: basename(layout.root),
  };
}

/** One line for the user: a spec's problems, or the error's message. */
function describeFailure(error: unknown): string {
  const problems = (error as { problems?: unknown }).problems;
  if (Array.isArray(problems))
    return `loop.yaml is invalid: ${problems.slice(0, 3).join("; ")}${problems.length > 3 ? "; ..." : ""}`;
  return error instanceof Error ? error.message : String(error);
}

/** Appends the failure with its stack to `.loopwright/hook-errors.log`; its path, or undefined. */
function logFailure(layout: HookLayout | undefined, event: string, error: unknown): string | undefined {
  if (!layout || !existsSync(layout.directory)) return undefined;
  try {
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    appendFileSync(layout.errors, `${new Date().toISOString()} hook ${event}: ${detail}\n`);
    return layout.errors;
  } catch {
    return undefined;
  }
}
