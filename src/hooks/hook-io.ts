/**
 * What a Claude Code hook reads and answers. Every hook answers with one JSON object on stdout and exit
 * code 0, never plain text and never exit 2 (which on UserPromptSubmit would erase the user's prompt).
 * The channels: `decision: "block"` + `reason` (Stop: Claude goes on and the model reads the reason),
 * `systemMessage` (shown to the user only: free), `hookSpecificOutput.additionalContext` (read by the
 * model). `{}` lets things go on.
 */

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

/** Reads the whole of stdin as the hook's JSON input; `{}` when stdin is a terminal or empty. */
export async function readHookInput(stdin: NodeJS.ReadStream = process.stdin): Promise<HookInput> {
  if (stdin.isTTY) return {};
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (text === "") return {};
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new Error("the hook input on stdin is not a JSON object");
  return parsed as HookInput;
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
