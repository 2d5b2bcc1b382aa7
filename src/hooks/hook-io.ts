/**
 * What a Claude Code hook reads and answers. Every hook answers with one JSON object on stdout and exit
 * code 0, never plain text and never exit 2 (which on UserPromptSubmit would erase the user's prompt).
 * The channels: `decision: "block"` + `reason` (Stop: Claude goes on and the model reads the reason),
 * `systemMessage` (shown to the user only: free), `hookSpecificOutput.additionalContext` (read by the
 * model). `{}` lets things go on.
 */
import { fstatSync, readSync, writeSync } from "../files/node-fs.ts";

/** The fields of a hook's stdin that hook mode reads; every one may be missing. */
export interface HookInput {
  session_id?: string;
  cwd?: string;
  hook_event_name?: string;
  stop_hook_active?: boolean;
  last_assistant_message?: string;
  prompt?: string;
  tool_name?: string;
  tool_input?: Record<string, unknown>;
  agent_type?: string;
  agent_id?: string;
  agent_transcript_path?: string;
}

export interface HookOutput {
  decision?: "block";
  reason?: string;
  systemMessage?: string;
  hookSpecificOutput?: {
    hookEventName: string;
    additionalContext?: string;
    permissionDecision?: "deny";
    permissionDecisionReason?: string;
  };
}

/**
 * Reads the whole of stdin as the hook's JSON input; `{}` when stdin is a terminal or empty. stdin is
 * read with the file system's blocking reads, not through `process.stdin`, whose stream loads net and
 * the streams (about 0.1× `node -e ''` of CPU, interleaved runs on a 2-core machine): Claude Code
 * hands a pipe. A character device (a terminal, /dev/null) goes through the stream as before (that
 * tells a terminal), and so does the rest of the input when a read fails (a non-blocking pipe with
 * nothing yet: EAGAIN), after what was already read.
 */
export async function readHookInput(
  descriptor = 0,
  stream: () => AsyncIterable<unknown> & { isTTY?: boolean } = () => process.stdin,
): Promise<HookInput> {
  const chunks: Buffer[] = [];
  if (!readDescriptor(descriptor, chunks)) {
    const stdin = stream();
    if (chunks.length === 0 && stdin.isTTY) return {};
    for await (const chunk of stdin) chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (text === "") return {};
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new Error("the hook input on stdin is not a JSON object");
  return parsed as HookInput;
}

/** Reads `descriptor` to its end into `chunks`; false (what was read kept) where the stream must go on. */
function readDescriptor(descriptor: number, chunks: Buffer[]): boolean {
  try {
    if (fstatSync(descriptor).isCharacterDevice()) return false;
    while (true) {
      const buffer = Buffer.allocUnsafe(64 * 1024);
      const count = readSync(descriptor, buffer, 0, buffer.length, null);
      if (count === 0) return true;
      chunks.push(buffer.subarray(0, count));
    }
  } catch {
    return false;
  }
}

/**
 * Prints the hook's answer (one JSON object, one line) with blocking writes to descriptor 1, which
 * loads no stream; what a write cannot take (a non-blocking pipe that is full: EAGAIN) goes through
 * `process.stdout`, which waits for the pipe (a reader that has gone is ignored). Returns true when the whole answer went out through
 * those writes (nothing of it is left for a stream to flush), false when `process.stdout` took a part.
 */
export function writeHookOutput(output: HookOutput): boolean {
  const bytes = Buffer.from(`${JSON.stringify(output)}\n`, "utf8");
  let written = 0;
  try {
    while (written < bytes.length) written += writeSync(1, bytes, written, bytes.length - written);
    return true;
  } catch {
    // A reader that has gone (EPIPE) fails the stream's write too: nobody is left to answer, and a hook
    // still ends with exit 0, not with an unhandled error.
    process.stdout.once("error", () => {});
    process.stdout.write(bytes.subarray(written));
    return false;
  }
}

export const passOn = (): HookOutput => ({});

export const blockStop = (reason: string): HookOutput => ({ decision: "block", reason });

export const tellUser = (systemMessage: string): HookOutput => ({ systemMessage });

/** PreToolUse: the tool call is refused; the model reads `reason`. */
export const denyTool = (reason: string): HookOutput => ({
  hookSpecificOutput: {
    hookEventName: "PreToolUse",
    permissionDecision: "deny",
    permissionDecisionReason: reason,
  },
});

export const addContext = (hookEventName: string, additionalContext: string): HookOutput => ({
  hookSpecificOutput: { hookEventName, additionalContext },
});
