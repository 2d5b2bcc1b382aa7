/**
 * An engine that cannot authenticate fails every turn and still costs the others' turns: `validate` and
 * `run` refuse it before anything is spent, and `auto` never picks such a verifier. Through the real
 * `loopwright` binary, with the real agent CLIs on PATH and a HOME that holds no login.
 */
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { binaries } from "./support/engine-loops.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { readTimeline } from "./support/loop-timeline.ts";

let sandbox: Sandbox;
let bare: NodeJS.ProcessEnv;
before(async () => {
  sandbox = await createSandbox();
  const home = join(sandbox.root, "empty-home");
  await mkdir(home);
  // The machine's credentials, whatever they are, are not the test's: none reach the CLI.
  const credential = /API_KEY|TOKEN|^(ANTHROPIC|OPENAI|CODEX|CLAUDE|COPILOT|GH|GITHUB)_/;
  bare = Object.fromEntries(Object.entries(sandbox.env).filter(([name]) => !credential.test(name)));
  Object.assign(bare, {
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    PATH: `${binaries}${delimiter}${process.env.PATH ?? ""}`,
  });
});
after(async () => {
  await sandbox.cleanup();
});

async function validate(name: string, engines: string, env: NodeJS.ProcessEnv = {}) {
  const path = await sandbox.spec(`name: ${name}
goal: the tests pass
repo: ./repo
${engines}
gates: [{ id: t, kind: tests-pass, run: "true" }]
`);
  return { path, result: await sandbox.cli(["validate", path], { env: { ...bare, ...env } }) };
}

const commandVerifier = 'verifier: { engine: command, run: "true" }';

describe("credentials before anything is spent", () => {
  test("validate refuses an agent-CLI maker that finds no credentials, naming what it looks for", async () => {
    for (const [engine, hint] of [
      ["codex", /OPENAI_API_KEY .*codex login/],
      ["claude-code", /ANTHROPIC_API_KEY/],
      ["copilot", /COPILOT_GITHUB_TOKEN/],
    ] as const) {
      const { result } = await validate(
        `no-login-${engine}`,
        `maker: { engine: ${engine} }\n${commandVerifier}`,
      );
      assert.equal(result.code, 2, `${engine}: ${result.stdout}${result.stderr}`);
      assert.match(result.stderr, new RegExp(`maker\\.engine: ${engine} finds no credentials`));
      assert.match(result.stderr, hint);
      assert.doesNotMatch(result.stdout, /valid/);
    }
  });

  test("a credential in the environment or a codex provider's env_key makes it valid", async () => {
    const withKey = await validate("keyed", `maker: { engine: codex }\n${commandVerifier}`, {
      OPENAI_API_KEY: "x",
    });
    assert.equal(withKey.result.code, 0, withKey.result.stderr);
    const codexHome = join(sandbox.root, "codex-home");
    await mkdir(codexHome, { recursive: true });
    await writeFile(
      join(codexHome, "config.toml"),
      'model_provider = "house"\n[model_providers.house]\nbase_url = "http://127.0.0.1:1/v1"\nenv_key = "HOUSE_KEY"\n',
    );
    const house = await validate("house", `maker: { engine: codex }\n${commandVerifier}`, {
      CODEX_HOME: codexHome,
      HOUSE_KEY: "x",
    });
    assert.equal(house.result.code, 0, house.result.stderr);
  });

  test("the builtin engine needs its provider's key; an openai-compatible server needs none", async () => {
    const anthropic = await validate(
      "bi-anthropic",
      `maker: { engine: builtin, model: anthropic:claude-sonnet-4-6 }\n${commandVerifier}`,
    );
    assert.equal(anthropic.result.code, 2);
    assert.match(anthropic.result.stderr, /maker\.engine: builtin finds no credentials.*ANTHROPIC_API_KEY/);
    const named = await validate(
      "bi-named",
      `maker: { engine: builtin, model: "openai-compatible:q@http://127.0.0.1:1/v1", args: [--api-key-env, ROUTER_KEY] }\n${commandVerifier}`,
    );
    assert.match(named.result.stderr, /set ROUTER_KEY \(named by --api-key-env\)/);
    const local = await validate(
      "bi-local",
      `maker: { engine: builtin, model: "openai-compatible:q@http://127.0.0.1:1/v1" }\n${commandVerifier}`,
    );
    assert.equal(local.result.code, 0, local.result.stderr);
  });

  test("auto picks the verifier that can authenticate, and refuses when none can", async () => {
    const maker = 'maker: { engine: command, run: "true" }';
    const picked = await validate("auto-keyed", maker, { OPENAI_API_KEY: "x" });
    assert.equal(picked.result.code, 0, picked.result.stderr);
    assert.match(picked.result.stdout, /verifier: codex/);
    const none = await validate("auto-none", maker);
    assert.equal(none.result.code, 2, none.result.stdout);
    assert.match(
      none.result.stderr,
      /auto found claude-code, codex, copilot installed but none finds credentials/,
    );
  });

  test("run refuses too, before the maker is paid for", async () => {
    const { path } = await validate("no-login-run", `maker: { engine: codex }\n${commandVerifier}`);
    const run = await sandbox.cli(["run", path], { env: bare });
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(run.stderr, /codex finds no credentials/);
    const types = (() => {
      try {
        return readTimeline(sandbox).map((event) => event.type);
      } catch {
        return [];
      }
    })();
    assert.ok(!types.includes("maker_started"), "no maker turn ran");
  });
});
