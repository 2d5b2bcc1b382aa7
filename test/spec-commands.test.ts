/**
 * Where a spec's commands are found, and what `validate` refuses or warns about before anything is
 * spent: `./` gate paths resolve against the repository (engines against the spec's folder), leading
 * `VAR=value` assignments are skipped to the real command, a placeholder goal is refused, and a
 * `python3 -m` module or an `npx` tool that is not installed is named. `validate` and `run` agree.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmod } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { createSandbox } from "./support/loop-sandbox.ts";

const hasPython = (() => {
  try {
    execFileSync("python3", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

test("a spec in a subfolder: engines' ./ paths from the spec's folder, gates' ./ paths from the repository", async () => {
  const sandbox = await createSandbox({
    "scripts/check.sh": "#!/bin/sh\ngrep -qx 42 answer.txt\n",
    "loops/agent.sh": "#!/bin/sh\necho 42 > answer.txt\n",
    "loops/check.sh": "#!/bin/sh\nexit 0\n",
  });
  try {
    await chmod(join(sandbox.repo, "scripts/check.sh"), 0o755);
    await chmod(join(sandbox.repo, "loops/agent.sh"), 0o755);
    await chmod(join(sandbox.repo, "loops/check.sh"), 0o755);
    await sandbox.git("add", "-A");
    await sandbox.git("commit", "-q", "-m", "executable scripts");
    const spec = await sandbox.spec(
      `name: nested
goal: answer.txt says 42.
repo: ..
maker: { engine: command, run: ./agent.sh }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates: [{ id: answer, kind: tests-pass, run: ./scripts/check.sh }]
`,
      join(sandbox.repo, "loops/loop.yaml"),
    );
    const validate = await sandbox.cli(["validate", "loops/loop.yaml"]);
    assert.equal(validate.code, 0, validate.stderr);
    assert.match(validate.stdout, /gate answer \(tests-pass\): \.\/scripts\/check\.sh /);
    const run = await sandbox.cli(["run", spec]);
    assert.equal(run.code, 0, run.stdout + run.stderr);

    // loops/check.sh exists next to the spec, but a gate's ./check.sh means the repository's.
    const wrong = await sandbox.spec(
      `name: nested-wrong
goal: answer.txt says 42.
repo: ..
maker: { engine: command, run: ./agent.sh }
gates: [{ id: answer, kind: tests-pass, run: ./check.sh }]
`,
      join(sandbox.repo, "loops/wrong.yaml"),
    );
    for (const command of ["validate", "run"]) {
      const refused = await sandbox.cli([command, wrong]);
      assert.equal(refused.code, 2, refused.stdout);
      assert.match(
        refused.stderr,
        /gates\[0\]\.run: command not found: \.\/check\.sh \(a gate's \.\/ path is relative to the repository\)/,
      );
    }
  } finally {
    await sandbox.cleanup();
  }
});

test("leading VAR=value assignments are skipped: validate finds the real command, or refuses it as run would fail", async () => {
  const sandbox = await createSandbox();
  try {
    const good = await sandbox.spec(`name: assigned
goal: answer.txt says 42.
repo: ./repo
maker: { engine: scripted, turns: [{ write: { answer.txt: "42\\n" } }] }
gates:
  - { id: answer, kind: tests-pass, run: "LANG=C FOO='a b' grep -qx 42 answer.txt" }
  - { id: env, kind: tests-pass, run: "env CI=1 true" }
`);
    const validate = await sandbox.cli(["validate", good]);
    assert.equal(validate.code, 0, validate.stderr);
    const run = await sandbox.cli(["run", good]);
    assert.equal(run.code, 0, run.stdout + run.stderr);

    const bad = await sandbox.spec(
      `name: assigned-missing
goal: answer.txt says 42.
repo: ./repo
maker: { engine: scripted, turns: [{ write: { answer.txt: "42\\n" } }] }
gates:
  - { id: answer, kind: tests-pass, run: "NODE_ENV=test no-such-runner-xyz --check" }
  - { id: other, kind: tests-pass, run: "env CI=1 also-missing-xyz" }
`,
      join(sandbox.root, "bad.yaml"),
    );
    for (const command of ["validate", "run"]) {
      const refused = await sandbox.cli([command, bad]);
      assert.equal(refused.code, 2, refused.stdout);
      assert.match(refused.stderr, /gates\[0\]\.run: command not found: no-such-runner-xyz/);
      assert.match(refused.stderr, /gates\[1\]\.run: command not found: also-missing-xyz/);
    }
  } finally {
    await sandbox.cleanup();
  }
});

test("a placeholder goal (TODO, TBD, init's placeholder) is refused by validate and run", async () => {
  const sandbox = await createSandbox();
  try {
    for (const goal of [
      "TODO",
      "tbd.",
      '"..."',
      '"FIXME: write the goal"',
      '"TODO: replace this with the standing goal: what should change, and what \\"done\\" means."',
    ]) {
      const spec = await sandbox.spec(`name: placeholder
goal: ${goal}
repo: ./repo
maker: { engine: scripted, turns: [{ write: { answer.txt: "42\\n" } }] }
gates: [{ id: answer, kind: tests-pass, run: "true" }]
`);
      for (const command of ["validate", "run"]) {
        const refused = await sandbox.cli([command, spec]);
        assert.equal(refused.code, 2, `${goal}: ${refused.stdout}`);
        assert.match(
          refused.stderr,
          /goal: .*placeholder.*write what should change and what done means/,
          goal,
        );
      }
    }
    const real = await sandbox.spec(`name: real
goal: "TODO list: the todo items render in order."
repo: ./repo
maker: { engine: scripted, turns: [{ write: { answer.txt: "42\\n" } }] }
gates: [{ id: answer, kind: tests-pass, run: "true" }]
`);
    assert.equal((await sandbox.cli(["validate", real])).code, 0, "a goal about a TODO list is a goal");
  } finally {
    await sandbox.cleanup();
  }
});

test("a python3 -m module that is not installed is refused; an npx tool not installed locally is warned about", {
  skip: hasPython ? false : "python3 is not installed on this machine",
}, async () => {
  const sandbox = await createSandbox();
  try {
    const spec = await sandbox.spec(`name: modules
goal: answer.txt says 42.
repo: ./repo
maker: { engine: scripted, turns: [{ write: { answer.txt: "42\\n" } }] }
gates:
  - { id: types, kind: build-succeeds, run: "python3 -m no_such_module_xyz src" }
  - { id: stdlib, kind: tests-pass, run: "python3 -m unittest discover" }
  - { id: lint, kind: lint-clean, run: "npx no-such-tool-xyz --check" }
`);
    for (const command of ["validate", "run"]) {
      const refused = await sandbox.cli([command, spec]);
      assert.equal(refused.code, 2, refused.stdout);
      assert.match(
        refused.stderr,
        /gates\[0\]\.run: python3 cannot find the module no_such_module_xyz \(python3 -m no_such_module_xyz\)/,
      );
      assert.doesNotMatch(refused.stderr, /gates\[1\]/);
    }
    const withoutModule = await sandbox.spec(
      `name: npx-only
goal: answer.txt says 42.
repo: ./repo
maker: { engine: scripted, turns: [{ write: { answer.txt: "42\\n" } }] }
gates: [{ id: lint, kind: lint-clean, run: "npx no-such-tool-xyz --check" }]
`,
      join(sandbox.root, "npx.yaml"),
    );
    const validate = await sandbox.cli(["validate", withoutModule]);
    assert.equal(validate.code, 0, validate.stderr);
    assert.match(
      validate.stdout,
      /warning: gates\[0\]\.run: no-such-tool-xyz is not installed in the repository \(node_modules\/\.bin\): npx would download it/,
    );
  } finally {
    await sandbox.cleanup();
  }
});
