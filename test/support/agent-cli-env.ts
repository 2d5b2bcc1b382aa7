/**
 * Environment that points each real agent CLI at our mock-model server, with its own empty home so it
 * reads no user login or configuration. The loop passes its environment through to the CLIs, so tests
 * set this on the `loopwright` process.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mockClientEnvironment } from "../../src/mock-model/client-environment.ts";

export type AgentCli = "claude-code" | "codex" | "copilot";

/** Env for the CLIs against a mock-model at `url` (no trailing slash), in a new temporary home. */
export async function agentCliEnvironment(
  url: string,
  _clis: AgentCli[] = [],
): Promise<Record<string, string>> {
  return mockClientEnvironment(url, await mkdtemp(join(tmpdir(), "loopwright-cli-home-")));
}
