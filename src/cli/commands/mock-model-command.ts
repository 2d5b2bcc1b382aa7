/**
 * `mock-model --script FILE [--port N] [--log FILE]`: serves a scripted model until SIGINT/SIGTERM and
 * prints the base URL and the environment each agent CLI needs to use it.
 */
import { UsageError } from "../../errors.ts";
import { startMockModel } from "../../mock-model/server.ts";

/** Serves until SIGINT or SIGTERM, then closes the server and returns 0. Bad port, script or log: `UsageError`. */
export async function mockModelCommand(options: {
  script: string;
  port?: string;
  log?: string;
}): Promise<number> {
  const port = options.port === undefined ? 0 : Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError(`--port must be a number from 0 to 65535, got ${JSON.stringify(options.port)}`);
  const server = await startMockModel({ script: options.script, port, log: options.log });
  const turns = server.script.conversations.reduce(
    (count, conversation) => count + conversation.turns.length,
    0,
  );
  process.stdout.write(
    `mock-model serving ${options.script} (${server.script.conversations.length} conversation(s), ${turns} turn(s)) on ${server.url}\n` +
      `${options.log ? `requests are appended to ${options.log}\n` : ""}\n${clientEnvironment(server.url)}\nCtrl-C stops it.\n`,
  );
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await server.close();
  process.stdout.write(`mock-model stopped after ${server.requests.length} request(s)\n`);
  return 0;
}

/** The environment (and for Codex the flags) that point each client at `url`; checked against the real CLIs. */
export function clientEnvironment(url: string): string {
  const provider = `model_providers.mock={name="mock",base_url="${url}/v1",wire_api="responses",env_key="MOCK_API_KEY",request_max_retries=0,stream_max_retries=0}`;
  return [
    "Claude Code:",
    `  ANTHROPIC_BASE_URL=${url} ANTHROPIC_API_KEY=mock CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 claude -p ...`,
    "Codex (CODEX_HOME set to an empty folder; use a model name codex knows, such as gpt-5.5):",
    `  MOCK_API_KEY=mock codex exec -m gpt-5.5 -c model_provider=mock -c '${provider}' ...`,
    "Copilot:",
    `  COPILOT_OFFLINE=true COPILOT_PROVIDER_BASE_URL=${url}/v1 COPILOT_PROVIDER_WIRE_API=responses COPILOT_PROVIDER_API_KEY=mock COPILOT_MODEL=gpt-5.5 copilot -p ...`,
    "OpenAI-compatible clients (Chat Completions or Responses):",
    `  OPENAI_BASE_URL=${url}/v1 OPENAI_API_KEY=mock`,
    "",
  ].join("\n");
}
