/**
 * Environment that points each real agent CLI at our mock-model server, with its own empty home so it
 * reads no user login or configuration (facts from the notes on agent CLIs, checked on this machine).
 * The loop passes its environment through to the CLIs, so tests set this on the `loopwright` process.
 */
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type AgentCli = "claude-code" | "codex" | "copilot";

/** Env for the given CLIs against a mock-model at `url` (no trailing slash); creates their homes. */
export async function agentCliEnvironment(url: string, clis: AgentCli[]): Promise<Record<string, string>> {
  const home = await mkdtemp(join(tmpdir(), "loopwright-cli-home-"));
  const env: Record<string, string> = { HOME: home };
  if (clis.includes("claude-code")) {
    Object.assign(env, {
      ANTHROPIC_BASE_URL: url,
      ANTHROPIC_API_KEY: "mock-key",
      CLAUDE_CODE_MAX_RETRIES: "0",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    });
  }
  if (clis.includes("codex")) {
    const codexHome = join(home, ".codex");
    await mkdir(codexHome, { recursive: true });
    await writeFile(
      join(codexHome, "config.toml"),
      [
        'model_provider = "mock"',
        'model = "gpt-5.5"',
        "[model_providers.mock]",
        'name = "mock"',
        `base_url = "${url}/v1"`,
        'wire_api = "responses"',
        'env_key = "MOCK_API_KEY"',
        "request_max_retries = 0",
        "stream_max_retries = 0",
        "",
      ].join("\n"),
    );
    Object.assign(env, { CODEX_HOME: codexHome, MOCK_API_KEY: "mock-key" });
  }
  if (clis.includes("copilot")) {
    Object.assign(env, {
      COPILOT_OFFLINE: "true",
      COPILOT_PROVIDER_BASE_URL: `${url}/v1`,
      COPILOT_PROVIDER_WIRE_API: "responses",
      COPILOT_PROVIDER_API_KEY: "mock-key",
      COPILOT_MODEL: "gpt-5.5",
      COPILOT_AUTO_UPDATE: "false",
    });
  }
  return env;
}
