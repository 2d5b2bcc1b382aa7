/**
 * `run`'s spec cache entry for a spec parsed from scratch: written once the maker's turn is under way (not
 * on the way to it), and when the command ends however it ends, a refused spec included.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { binary, createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const entries = (home: string) => {
  const folder = join(home, "cache", "specs");
  return existsSync(folder) ? readdirSync(folder).filter((name) => name.endsWith(".json")).length : 0;
};

describe("run's deferred spec-cache write", () => {
  let sandbox: Sandbox;
  before(async () => {
    sandbox = await createSandbox();
  });
  after(() => sandbox.cleanup());

  test("a run refused for a spec without a maker still writes the entry it held (held past the command's end)", async () => {
    const home = join(sandbox.root, "no-maker-home");
    const spec = await sandbox.spec(
      'name: no-maker\ngoal: Hook mode only.\nrepo: ./repo\ngates:\n  - { id: tests, kind: tests-pass, run: "true" }\n',
      join(sandbox.root, "no-maker.yaml"),
    );
    const run = spawnSync(process.execPath, [binary, "run", spec], {
      cwd: sandbox.repo,
      env: { ...sandbox.env, LOOPWRIGHT_HOME: home },
      encoding: "utf8",
    });
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /maker: required/);
    assert.equal(entries(home), 1, "the valid any-mode parse was not cached");
  });

  test("the entry is written while a long maker turn runs, not only after it", async () => {
    const home = join(sandbox.root, "long-turn-home");
    const started = join(sandbox.root, "long-turn-started");
    const spec = await sandbox.spec(
      `name: long-turn\ngoal: A long turn.\nrepo: ./repo\nmaker: { engine: command, run: "touch ${started}; sleep 8" }\nverifier: { engine: command, run: "cat" }\ngates:\n  - { id: tests, kind: tests-pass, run: "false" }\nbudget: { maxIterations: 1 }\n`,
      join(sandbox.root, "long-turn.yaml"),
    );
    const child = spawn(process.execPath, [binary, "run", spec], {
      cwd: sandbox.repo,
      env: { ...sandbox.env, LOOPWRIGHT_HOME: home },
      stdio: "ignore",
    });
    try {
      for (let waited = 0; !existsSync(started) && waited < 20_000; waited += 100)
        await new Promise((resolve) => setTimeout(resolve, 100));
      assert.ok(existsSync(started), "the maker started");
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      assert.equal(entries(home), 1, "no entry 3 s into the maker's turn");
    } finally {
      child.kill("SIGKILL");
    }
  });
});
