/**
 * A loop.yaml with only a name, a goal and gates serves hook mode (which never runs a maker): `init
 * claude` accepts it and its gates hold at every stop, also when an installed checkout's spec loses
 * its maker; `validate` says which modes a spec can serve; `run` refuses it with a clear error.
 */
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { runHookProcess } from "./support/hook-runner.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const makerless = `name: hooked
goal: add() adds.
gates:
  - { id: tests, kind: tests-pass, run: "grep -q 'a + b' math.js" }
`;
const withMaker = makerless.replace(
  "gates:",
  'maker: { engine: command, run: "true" }\nverifier: { engine: command, run: "true" }\ngates:',
);
const wrong = "export const add = (a, b) => a - b;\n";

const sandboxes: Sandbox[] = [];
after(() => Promise.all(sandboxes.map((sandbox) => sandbox.cleanup())));

async function checkout(spec: string): Promise<Sandbox> {
  const sandbox = await createSandbox({ "math.js": wrong, "loop.yaml": spec });
  delete sandbox.env.NODE_TEST_CONTEXT;
  sandboxes.push(sandbox);
  return sandbox;
}

describe("a spec with only name, goal and gates", () => {
  test("init claude accepts it, and its gates block a stop", async () => {
    const sandbox = await checkout(makerless);
    const init = await sandbox.cli(["init", "claude"]);
    assert.equal(init.code, 0, init.stderr);
    assert.match(init.stdout, /gates: tests \(every-stop\)/);
    const stop = await runHookProcess("stop", sandbox.repo, {}, sandbox.env);
    assert.equal(stop.output?.decision, "block");
    assert.match(stop.output?.reason ?? "", /gate `tests` failed/);
  });

  test("an installed checkout whose spec loses its maker does not fail open", async () => {
    const sandbox = await checkout(withMaker);
    assert.equal((await sandbox.cli(["init", "claude"])).code, 0);
    await sandbox.write({ "loop.yaml": makerless });
    const stop = await runHookProcess("stop", sandbox.repo, {}, sandbox.env);
    assert.equal(stop.output?.decision, "block");
  });

  test("validate says it serves hook mode only; with a maker, both modes", async () => {
    const sandbox = await checkout(makerless);
    const hookOnly = await sandbox.cli(["validate", "loop.yaml"]);
    assert.equal(hookOnly.code, 0, hookOnly.stderr);
    assert.match(hookOnly.stdout, /loop\.yaml: valid for hook mode only/);
    assert.match(hookOnly.stdout, /loop mode \(`loopwright run`\): no, it needs a maker/);
    await sandbox.write({ "loop.yaml": withMaker });
    const both = await sandbox.cli(["validate", "loop.yaml"]);
    assert.equal(both.code, 0, both.stderr);
    assert.match(both.stdout, /modes: loop \(`loopwright run`\) and hook mode \(`loopwright init claude`\)/);
  });

  test("run refuses it with one clear line and exit 2", async () => {
    const sandbox = await checkout(makerless);
    const run = await sandbox.cli(["run", "loop.yaml"]);
    assert.equal(run.code, 2);
    assert.match(
      run.stderr,
      /loop\.yaml:1: maker: required to run a loop \(hook mode needs only name, goal and gates\)/,
    );
  });
});
