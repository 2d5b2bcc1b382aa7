import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { mockModelCommand } from "../src/cli/commands/mock-model-command.ts";
import { UsageError } from "../src/errors.ts";

const folder = mkdtempSync(join(tmpdir(), "loopwright-mock-command-"));
after(() => rmSync(folder, { recursive: true, force: true }));
const commandModule = new URL("../src/cli/commands/mock-model-command.ts", import.meta.url).href;

test("mock-model serves a script file, prints the URL and each client's environment, and stops on SIGTERM", async () => {
  const script = join(folder, "script.yaml");
  const log = join(folder, "requests.jsonl");
  writeFileSync(script, "turns:\n  - text: hello from the script\n");
  const program = `import { mockModelCommand } from ${JSON.stringify(commandModule)};
process.exitCode = await mockModelCommand({ script: ${JSON.stringify(script)}, port: "0", log: ${JSON.stringify(log)} });`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", program], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.setEncoding("utf8");
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk: string) => {
      output += chunk;
      const match = /on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(output);
      if (match && output.includes("Ctrl-C stops it.")) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`exited ${code} before serving:\n${output}`)));
  });
  assert.match(output, new RegExp(`ANTHROPIC_BASE_URL=${url} `));
  assert.match(output, new RegExp(`base_url="${url}/v1",wire_api="responses"`));
  assert.match(output, new RegExp(`COPILOT_PROVIDER_BASE_URL=${url}/v1 `));

  const response = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
  });
  const body = (await response.json()) as { choices: { message: { content: string } }[] };
  assert.equal(body.choices[0].message.content, "hello from the script");

  const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
  child.kill("SIGTERM");
  assert.equal(await exited, 0);
  assert.match(output, /mock-model stopped after 1 request\(s\)/);
  assert.equal(readFileSync(log, "utf8").trim().split("\n").length, 1);
});

test("a bad port or script is a usage error", async () => {
  await assert.rejects(mockModelCommand({ script: join(folder, "none.yaml"), port: "http" }), UsageError);
  await assert.rejects(mockModelCommand({ script: join(folder, "none.yaml") }), /none\.yaml: no such file/);
});
