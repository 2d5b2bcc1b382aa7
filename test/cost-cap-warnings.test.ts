/**
 * A cost cap is only as good as the price of the model it watches. `validate` (and the timeline's
 * `engines_resolved`) say when a cap meets a model loopwright cannot price: codex with no model named
 * anywhere (its output never names the model it used), or a model missing from the price table.
 * Through the real `loopwright` binary, with the real `codex` CLI on PATH.
 */
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type MockModel, startMockModel } from "../src/mock-model/server.ts";
import { binaries } from "./support/engine-loops.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { readTimeline } from "./support/loop-timeline.ts";

let sandbox: Sandbox;
let env: NodeJS.ProcessEnv;
let codexHome: string;
before(async () => {
  sandbox = await createSandbox();
  const home = join(sandbox.root, "home-of-user");
  codexHome = join(home, ".codex");
  await mkdir(codexHome, { recursive: true });
  const credential = /API_KEY|TOKEN|^(ANTHROPIC|OPENAI|CODEX|CLAUDE|COPILOT|GH|GITHUB)_/;
  env = Object.fromEntries(Object.entries(sandbox.env).filter(([name]) => !credential.test(name)));
  Object.assign(env, {
    HOME: home,
    CODEX_HOME: codexHome,
    OPENAI_API_KEY: "x",
    PATH: `${binaries}${delimiter}${process.env.PATH ?? ""}`,
  });
});
after(async () => {
  await sandbox.cleanup();
});

async function validate(name: string, maker: string, budget = "{ maxCostUsdPerIteration: 5 }", config = "") {
  await writeFile(join(codexHome, "config.toml"), config);
  const path = await sandbox.spec(`name: ${name}
goal: the tests pass
repo: ./repo
maker: ${maker}
verifier: { engine: command, run: "true" }
gates: [{ id: t, kind: tests-pass, run: "true" }]
budget: ${budget}
`);
  const result = await sandbox.cli(["validate", path], { env });
  assert.equal(result.code, 0, result.stderr);
  return result.stdout;
}

describe("validate warns when a cost cap meets a model it cannot price", () => {
  test("codex with no model in the spec, its args or its config", async () => {
    const out = await validate("codex-default", "{ engine: codex }");
    assert.match(
      out,
      /warning: maker codex names no model .* maxCostUsdPerIteration and maxCostUsdPerDay cannot be enforced/,
    );
  });

  test("codex whose model comes from its config, a profile of it, or -m is priced: no warning", async () => {
    for (const [name, maker, config] of [
      ["codex-config", "{ engine: codex }", 'model = "gpt-5.5"\n'],
      [
        "codex-profile",
        "{ engine: codex, args: [--profile, cheap] }",
        '[profiles.cheap]\nmodel = "gpt-5-mini"\n',
      ],
      ["codex-top-profile", "{ engine: codex }", 'profile = "cheap"\n[profiles.cheap]\nmodel = "o3"\n'],
      ["codex-flag", "{ engine: codex, args: [-m, gpt-4.1-mini] }", ""],
    ]) {
      const out = await validate(name, maker, undefined, config);
      assert.doesNotMatch(out, /cannot be enforced/, name);
    }
  });

  test("a model missing from the price table, named with the table's date", async () => {
    const out = await validate("codex-unpriced", "{ engine: codex, model: gpt-9-hypothetical }");
    assert.match(
      out,
      /warning: maker codex model gpt-9-hypothetical has no price in the price table \(checked \d{4}-\d{2}-\d{2}\)/,
    );
    const builtin = await validate("builtin-unpriced", "{ engine: builtin, model: openai:house-model }");
    assert.match(builtin, /warning: maker builtin model house-model has no price/);
  });

  test("no cap, no warning", async () => {
    const out = await validate(
      "codex-uncapped",
      "{ engine: codex }",
      "{ maxCostUsdPerIteration: 0, maxCostUsdPerDay: 0 }",
    );
    assert.doesNotMatch(out, /cannot be enforced/);
  });
});

describe("the timeline records it", () => {
  let server: MockModel;
  before(async () => {
    server = await startMockModel({ script: { turns: [{ text: "Nothing to change." }] } });
  });
  after(async () => {
    await server.close();
  });

  test("engines_resolved carries the warning of a run whose maker is unpriced", async () => {
    const path = await sandbox.spec(`name: unpriced-run
goal: the tests pass
repo: ./repo
maker: { engine: builtin, model: "openai-compatible:house-model@${server.url}/v1" }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates: [{ id: t, kind: tests-pass, run: "true" }]
budget: { maxIterations: 1, maxCostUsdPerIteration: 5 }
`);
    const run = await sandbox.cli(["run", path], { env });
    assert.match(run.stdout, /house-model has no price/, run.stdout + run.stderr);
    const resolved = readTimeline(sandbox).find(
      (event) => event.type === "engines_resolved" && event.data.includes("house-model"),
    );
    assert.ok(resolved, "an engines_resolved event for the run");
    assert.match(resolved.data, /house-model has no price in the price table/);
  });
});
