import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { delimiter, dirname, join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { binary } from "./support/loop-sandbox.ts";

const run = promisify(execFile);
const devBin = join(new URL("../node_modules/.bin", import.meta.url).pathname);

async function doctor(path: string) {
  const { stdout } = await run(process.execPath, [binary, "doctor", "--json"], {
    env: { ...process.env, PATH: path, ANTHROPIC_API_KEY: "set-for-the-test", OPENAI_API_KEY: "" },
  });
  return JSON.parse(stdout) as {
    engine: string;
    installed: boolean;
    version?: string;
    packageName: string;
    provider: string;
    credentials: string[];
    costReporting: string;
  }[];
}

test("doctor names each agent CLI's version, provider, credentials found and cost reporting", async () => {
  const checks = await doctor(`${devBin}${delimiter}${process.env.PATH ?? ""}`);
  assert.deepEqual(
    checks.map((check) => [check.engine, check.installed, check.provider, check.costReporting]),
    [
      ["claude-code", true, "anthropic", "live"],
      ["codex", true, "openai", "end-of-turn"],
      ["copilot", true, "github", "none"],
    ],
  );
  for (const check of checks) assert.match(check.version ?? "", /\d+\.\d+\.\d+/, check.engine);
  const claude = checks.find((check) => check.engine === "claude-code");
  assert.ok(
    claude?.credentials.some((name) => name.includes("ANTHROPIC_API_KEY")),
    JSON.stringify(claude),
  );
  assert.ok(!JSON.stringify(checks).includes("set-for-the-test"), "credential values are never printed");
});

test("doctor says which npm package to install when a CLI is missing", async () => {
  // Only the folder of node itself and git: none of the agent CLIs.
  const checks = await doctor(`${dirname(process.execPath)}${delimiter}/usr/bin${delimiter}/bin`);
  assert.deepEqual(
    checks.map((check) => [check.engine, check.installed, check.packageName]),
    [
      ["claude-code", false, "@anthropic-ai/claude-code"],
      ["codex", false, "@openai/codex"],
      ["copilot", false, "@github/copilot"],
    ],
  );
});
