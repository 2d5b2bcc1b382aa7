/**
 * What a user reads about a loop: the live output of `run`, `show`, `ls` and `report`. Tamper flags
 * are printed as they are found, with their class; "verified" always says how many flags the verifier
 * ruled legitimate; gate runs are labelled by phase; a timed-out gate says so; lint has findings.
 */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

/** A command-engine verifier that approves every gate that counts as passed and rules every flag legitimate. */
async function lenientVerifier(sandbox: Sandbox): Promise<string> {
  const path = join(sandbox.root, "lenient-verifier.mjs");
  await writeFile(
    path,
    `import { readFileSync } from "node:fs";
const context = JSON.parse(readFileSync(process.env.LOOPWRIGHT_CONTEXT_FILE, "utf8"));
const file = context.changedFiles.find((name) => !name.startsWith("config/")) ?? context.changedFiles[0];
const gates = context.gates.map((gate) => ({ id: gate.id, passed: true, evidence: [{ file, line: 1 }] }));
const tamper = (context.tamperFlags ?? []).map((flag) => ({ id: flag.id, legitimate: true, reason: "looks fine to me" }));
console.log(JSON.stringify({ overall: "pass", gates, tamper }));
`,
  );
  return `node ${path}`;
}

test("a verified loop with advisory flags ruled legitimate says so live, in show, ls and the report", async () => {
  const sandbox = await createSandbox();
  try {
    const verifier = await lenientVerifier(sandbox);
    const spec = await sandbox.spec(`name: lenient
goal: answer.txt says 42.
repo: ./repo
maker:
  engine: scripted
  turns: [{ write: { answer.txt: "42\\n", config/limits.json: "{}\\n", config/more.json: "{}\\n" } }]
verifier: { engine: command, run: "${verifier}" }
gates: [{ id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }]
scope: { protect: ["config/**"] }
`);
    const run = await sandbox.cli(["run", spec]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(
      run.stdout,
      /⚑ T1 advisory tamper-file config\/limits\.json: .*\n.*⚑ T2 advisory tamper-file/,
    );
    assert.ok(
      run.stdout.indexOf("⚑ T1") < run.stdout.indexOf("verifier reviewing"),
      "flags are printed as they are found, before the verifier rules",
    );
    assert.match(run.stdout, /T1 ruled legitimate: looks fine to me/);
    assert.match(run.stdout, /stopped: verified, 2 tamper flags ruled legitimate: /);

    const show = await sandbox.cli(["show", "lenient"]);
    assert.match(show.stdout, /status: stopped: verified, 2 tamper flags ruled legitimate: /);
    assert.match(
      show.stdout,
      /⚑ T1 advisory tamper-file config\/limits\.json: .* — ruled legitimate: looks fine to me/,
    );
    const list = await sandbox.cli(["ls"]);
    assert.match(list.stdout, /lenient +stopped \(verified, 2 tamper flags ruled legitimate\)/);
    const rows = JSON.parse((await sandbox.cli(["ls", "--json"])).stdout);
    assert.equal(rows[0].tamperFlagsRuledLegitimate, 2);
    const report = await sandbox.cli(["report", "lenient"]);
    assert.match(report.stdout, /## Outcome\n\n\*\*verified, 2 tamper flags ruled legitimate\*\*/);
    assert.match(
      report.stdout,
      /- T1 tamper-file `config\/limits\.json`: .* — ruled legitimate: looks fine to me/,
    );
  } finally {
    await sandbox.cleanup();
  }
});

test("a blocking flag is printed live as blocking, apart from the advisory ones", async () => {
  const sandbox = await createSandbox({
    "test/math.test.js": 'import { test } from "node:test";\ntest("adds", () => {});\n',
  });
  try {
    const verifier = await lenientVerifier(sandbox);
    const spec = await sandbox.spec(`name: skipper
goal: the tests pass.
repo: ./repo
maker:
  engine: scripted
  turns: [{ write: { test/math.test.js: "import { test } from \\"node:test\\";\\ntest.skip(\\"adds\\", () => {});\\n" } }]
verifier: { engine: command, run: "${verifier}" }
gates: [{ id: tests, kind: tests-pass, run: "true" }]
budget: { maxIterations: 1 }
`);
    const run = await sandbox.cli(["run", spec]);
    assert.match(run.stdout, /⚑ T\d BLOCKING skip-marker-added test\/math\.test\.js:2: /);
    assert.match(run.stdout, /⚑ T\d advisory tamper-file test\/math\.test\.js: /);
    const show = await sandbox.cli(["show", "skipper"]);
    assert.match(show.stdout, /⚑ T\d BLOCKING skip-marker-added test\/math\.test\.js:2/);

    // The same change in a loop that accepts skip markers: the verifier rules, and "verified" says so.
    const original = await readFile(spec, "utf8");
    const accepting = await sandbox.spec(
      original
        .replace("name: skipper", "name: accepting")
        .replace("budget:", 'tamper: { accept: [skip-marker], reason: "quarantined upstream" }\nbudget:'),
      join(sandbox.root, "accepting.yaml"),
    );
    const accepted = await sandbox.cli(["run", accepting]);
    assert.equal(accepted.code, 0, accepted.stdout + accepted.stderr);
    assert.match(accepted.stdout, /⚑ T\d blocking, accepted skip-marker-added test\/math\.test\.js:2: /);
    assert.match(
      accepted.stdout,
      /stopped: verified, 2 tamper flags ruled legitimate \(1 of a blocking kind the spec accepts\): /,
    );
  } finally {
    await sandbox.cleanup();
  }
});

test("show labels each gate run by phase and shows the baseline, flakes and timeouts; the report says 'timed out after'", async () => {
  const sandbox = await createSandbox({
    "lint.sh": `echo "$PWD/src/a.js"
echo "  1:5  error  'x' is assigned a value but never used  no-unused-vars"
echo "  2:1  error  Unexpected console statement  no-console"
echo ""
echo "✖ 2 problems (2 errors, 0 warnings)"
exit 1
`,
  });
  try {
    const counter = join(sandbox.root, "runs");
    // Passes on the base commit, fails on its first graded run, passes on the recheck and after.
    const flaky = `n=$(cat ${counter} 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${counter}; test $n -ne 2`;
    const spec = await sandbox.spec(`name: phases
goal: answer.txt says 42.
repo: ./repo
maker: { engine: scripted, turns: [{ write: { answer.txt: "42\\n" } }] }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: answer, kind: tests-pass, run: "${flaky}", flaky: report }
  - { id: stable, kind: tests-pass, run: "true" }
  - { id: slow, kind: tests-pass, run: "sleep 10", timeout: 1s, required: false }
  - { id: lint, kind: lint-clean, run: "sh lint.sh", required: false }
`);
    const run = await sandbox.cli(["run", spec]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /✗ slow \(base commit\) timed out after 1\.0s/);

    const show = (await sandbox.cli(["show", "phases"])).stdout;
    assert.match(show, /baseline \(the base commit [0-9a-f]{12}\):\n {2}✓ answer \d/);
    assert.match(show, / {2}✗ slow timed out after 1\.0s/);
    assert.match(show, / {2}✗ lint exit 1, 2 lint finding\(s\)/);
    assert.match(show, / {2}✗ answer \[grade\] exit 1 /);
    assert.match(show, / {2}✓ answer \[recheck\] /);
    assert.match(show, / {2}✓ stable \[confirm\] /);
    assert.match(show, / {2}✗ slow \[grade\] timed out after 1\.0s/);
    assert.match(
      show,
      /⚠ answer is flaky: it passed and failed on the same commit \(reported, not blocking\)/,
    );
    assert.doesNotMatch(show, /exit null|failing test/);
    const json = JSON.parse((await sandbox.cli(["show", "phases", "--json"])).stdout);
    assert.deepEqual(
      json.baseline.map((gate: { id: string }) => gate.id),
      ["answer", "stable", "slow", "lint"],
    );
    assert.deepEqual(json.iterations[0].flaky, ["answer"]);

    const report = (await sandbox.cli(["report", "phases"])).stdout;
    assert.match(
      report,
      /\| slow \| tests-pass \(informative\) \| ✗ timed out after 1\.0s \| timed out after 1\.0s \|/,
    );
    assert.match(
      report,
      /\| lint \| lint-clean \(informative\) \| ✗ exit 1 \(0 new, 2 pre-existing failures\) \| failed \(2 lint findings\) \|/,
    );
    assert.doesNotMatch(report, /exit null|failing test/);
    const brief = (await sandbox.cli(["brief", "phases", "--iteration", "1"])).stdout;
    assert.match(brief, /- lint failed there \(exit 1, 2 lint finding\(s\)\)/);
  } finally {
    await sandbox.cleanup();
  }
});

test("iterations lost to infrastructure errors do not count: 'iteration 2 (1 of 1 counted)', not 'iteration 2/1'", async () => {
  const sandbox = await createSandbox();
  try {
    const counter = join(sandbox.root, "turns");
    const maker = `n=$(cat ${counter} 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${counter}; if [ $n -eq 1 ]; then echo crash; exit 1; fi; echo 42 > answer.txt`;
    const spec = await sandbox.spec(`name: shaky
goal: answer.txt says 42.
repo: ./repo
maker: { engine: command, run: "${maker}" }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates: [{ id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }]
budget: { maxIterations: 1 }
`);
    const run = await sandbox.cli(["run", spec]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /── iteration 1\/1 ──/);
    assert.match(run.stdout, /── iteration 2 \(1 of 1 counted\) ──/);
    assert.doesNotMatch(run.stdout, /iteration 2\/1/);
    const show = (await sandbox.cli(["show", "shaky"])).stdout;
    assert.match(show, /iteration 1: infra_error \(not counted\)/);
  } finally {
    await sandbox.cleanup();
  }
});
