/**
 * One interactive-like session of the real `claude` CLI: prompts sent one after the other on stdin as
 * stream-json (each is a user turn: UserPromptSubmit fires, and Stop at its end), hook events included
 * in the output, edits and Bash allowed without prompts. Point it at a mock-model server through `env`
 * (see agent-cli-env.ts).
 */
import { spawn } from "node:child_process";
import type { HookOutput } from "../../src/hooks/hook-io.ts";

export interface ClaudeSession {
  code: number | null;
  /** Every stream-json event, in order. */
  events: Record<string, unknown>[];
  stderr: string;
}

/** Runs one session of `claude` in `cwd`, sending each prompt once the previous one has its result. */
export function runClaudeSession(
  cwd: string,
  prompts: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 120_000,
): Promise<ClaudeSession> {
  const argv = [
    "-p",
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
    "--include-hook-events",
    "--permission-mode",
    "acceptEdits",
    "--allowedTools",
    "Bash",
    "--no-session-persistence",
  ];
  return new Promise((resolve, reject) => {
    const child = spawn("claude", argv, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    const events: Record<string, unknown>[] = [];
    let pending = "";
    let stderr = "";
    let sent = 0;
    const send = () => {
      child.stdin.write(
        `${JSON.stringify({ type: "user", message: { role: "user", content: prompts[sent++] } })}\n`,
      );
    };
    child.stdout.on("data", (chunk) => {
      pending += chunk;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        if (!line.trim()) continue;
        const event = JSON.parse(line) as Record<string, unknown>;
        events.push(event);
        if (event.type !== "result") continue;
        if (sent < prompts.length) send();
        else child.stdin.end();
      }
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, events, stderr });
    });
    send();
  });
}

/** What the hooks of `hookEvent` (Stop, UserPromptSubmit...) answered, in order, parsed. */
export function hookAnswers(session: ClaudeSession, hookEvent: string): HookOutput[] {
  return session.events
    .filter(
      (event) =>
        event.type === "system" && event.subtype === "hook_response" && event.hook_event === hookEvent,
    )
    .map((event) => {
      try {
        return JSON.parse(String(event.stdout)) as HookOutput;
      } catch {
        return { systemMessage: `not JSON: ${String(event.stdout)} ${String(event.stderr)}` };
      }
    });
}

/** The result events (one per prompt). */
export function results(session: ClaudeSession): Record<string, unknown>[] {
  return session.events.filter((event) => event.type === "result");
}
