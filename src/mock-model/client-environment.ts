/**
 * The environment that points each real agent CLI at a mock-model server, with a private home so it
 * reads no login or configuration of the user's (checked against claude, codex and copilot). Used by
 * `demo --engine` and the tests; `mock-model` prints the same settings for people.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";

/**
 * Creates the CLIs' homes under `home` and returns the variables to set. The cache stays where it was
 * (`XDG_CACHE_HOME`, else the real home's `.cache`): Copilot unpacks itself there, 235 MB a version.
 */
export async function mockClientEnvironment(url: string, home: string): Promise<Record<string, string>> {
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
  return {
    HOME: home,
    XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"),
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: "mock-key",
    CLAUDE_CODE_MAX_RETRIES: "0",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    CODEX_HOME: codexHome,
    MOCK_API_KEY: "mock-key",
    COPILOT_OFFLINE: "true",
    COPILOT_PROVIDER_BASE_URL: `${url}/v1`,
    COPILOT_PROVIDER_WIRE_API: "responses",
    COPILOT_PROVIDER_API_KEY: "mock-key",
    COPILOT_MODEL: "gpt-5.5",
    COPILOT_AUTO_UPDATE: "false",
  };
}
