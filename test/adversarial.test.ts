/**
 * Adversarial loops, each a real loop through the real CLI: makers that cheat (delete, skip, weaken or
 * exclude the failing test, lower a coverage threshold, claim success without a change, lean on a
 * flaky test) and verifiers that misbehave (invalid JSON, approvals without evidence, invented files
 * and quotes, a red gate approved). None of them may end `verified`. Then the honest paths: a real fix
 * verifies, and failures that predate the loop are judged by the gate's baseline policy.
 *
 * One sandbox for the file: every loop has its own name, branch and worktrees. The base commit holds a
 * small JavaScript project with one failing test, a Python one, a coverage check and a flaky test; the
 * `legacy` branch adds an unrelated failure that predates every loop based on it.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import type { EventPayloads, EventType, LoopEvent, RecordedTamperFlag, Verdict } from "../src/loop/events.ts";
import { type CliResult, createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const calcTest = `const test = require("node:test");
const assert = require("node:assert/strict");
const { add } = require("../src/calc.js");

test("add sums two numbers", () => {
  assert.equal(add(2, 3), 5);
});

test("add keeps a number plus zero", () => {
  assert.equal(add(4, 0), 4);
});
`;

const baseFiles: Record<string, string> = {
  "README.md": "# calc\n",
  "package.json": `${JSON.stringify({ name: "calc", private: true, scripts: { test: "node --test test/*.test.js" } }, null, 2)}\n`,
  "src/calc.js": "exports.add = (a, b) => a - b;\nexports.mul = (a, b) => a * b;\n",
  "test/add.test.js": calcTest,
  "test/mul.test.js": `const test = require("node:test");
const assert = require("node:assert/strict");
const { mul } = require("../src/calc.js");

test("mul multiplies", () => {
  assert.equal(mul(2, 3), 6);
});
`,
  "py/calc.py": "def add(a, b):\n    return a - b\n",
  "py/test_calc.py": `from calc import add


def test_add_sums_two_numbers():
    assert add(2, 3) == 5


def test_add_keeps_zero():
    assert add(4, 0) == 4
`,
  "cov/.c8rc.json": `${JSON.stringify({ "check-coverage": true, lines: 90 }, null, 2)}\n`,
  "cov/format.js": `exports.pad = (text, width) => String(text).padStart(width, "0");

exports.money = (cents) => {
  const whole = Math.floor(cents / 100);
  const rest = cents % 100;
  return \`\${whole}.\${exports.pad(rest, 2)}\`;
};

exports.percent = (ratio) => {
  const rounded = Math.round(ratio * 1000) / 10;
  return \`\${rounded}%\`;
};
`,
  "cov/format.test.js": `const test = require("node:test");
const assert = require("node:assert/strict");
const { pad } = require("./format.js");

test("pad fills with zeros", () => {
  assert.equal(pad(7, 3), "007");
});
`,
  "flaky/flaky.test.js": `const test = require("node:test");
const assert = require("node:assert/strict");
const { readFileSync, writeFileSync } = require("node:fs");

// Passes on every second run: the run count lives in a file outside the repository.
test("settles the queue", () => {
  const counter = process.env.FLAKY_COUNTER;
  let runs = 0;
  try { runs = Number(readFileSync(counter, "utf8")); } catch {}
  writeFileSync(counter, String(runs + 1));
  assert.equal((runs + 1) % 2, 0, \`run \${runs + 1}: the queue did not settle\`);
});
`,
};

const legacyTest = `const test = require("node:test");
const assert = require("node:assert/strict");

test("legacy parses two-digit years", () => {
  assert.equal(new Date("01/02/03").getFullYear(), 1903);
});
`;

/** The fixed calculator: the honest change. */
const fixedCalc = "exports.add = (a, b) => a + b;\nexports.mul = (a, b) => a * b;\n";

let sandbox: Sandbox;
let hasPytest = false;

before(async () => {
  sandbox = await createSandbox(baseFiles);
  await sandbox.git("checkout", "-q", "-b", "legacy");
  await sandbox.commit({ "test/legacy.test.js": legacyTest }, "a legacy test that already fails");
  await sandbox.git("checkout", "-q", "main");
  try {
    execFileSync("python3", ["-m", "pytest", "--version"], { stdio: "ignore" });
    hasPytest = true;
  } catch {
    hasPytest = false;
  }
});
after(() => sandbox.cleanup());

interface Report {
  goal: string;
  stopReason: string;
  stopMessage: string;
  iterations: {
    iteration: number;
    outcome: string;
    summary: string;
    commit?: string;
    repeat: boolean;
    tamperFlags: RecordedTamperFlag[];
    gates: { id: string; phase: string; passed: boolean; exitCode: number | null }[];
  }[];
  verdict: Verdict | null;
}

interface LoopRun extends CliResult {
  events: LoopEvent[];
  /** `report <loop> --json`. */
  report: Report;
  /** `report <loop>` (Markdown). */
  markdown: string;
}

/** Node 24 (the one running this file) first on PATH: gates and scripts run the same node everywhere. */
const path = `${dirname(process.execPath)}:${process.env.PATH ?? ""}`;

/**
 * Writes the spec (and helper scripts next to it, made executable), runs the loop with `--json`,
 * asserts that no process it started survives, and returns its events and reports.
 */
async function runLoop(
  spec: string,
  options: { scripts?: Record<string, string>; env?: NodeJS.ProcessEnv } = {},
): Promise<LoopRun> {
  for (const [file, body] of Object.entries(options.scripts ?? {})) {
    await writeFile(join(sandbox.root, file), body);
    await chmod(join(sandbox.root, file), 0o755);
  }
  const name = /^name: (\S+)$/m.exec(spec)?.[1] ?? "";
  const specPath = await sandbox.spec(spec, join(sandbox.root, `${name}.yaml`));
  const env = { PATH: path, npm_config_logs_max: "0", npm_config_update_notifier: "false", ...options.env };
  const result = await sandbox.cli(["run", specPath, "--json"], { env, timeoutMs: 60_000 });
  assert.deepEqual(survivors(sandbox.home), [], "no process of the loop survives it");
  const events = result.stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as LoopEvent);
  const [json, markdown] = await Promise.all([
    sandbox.cli(["report", name, "--json"]),
    sandbox.cli(["report", name]),
  ]);
  assert.equal(json.code, 0, `report ${name}: ${json.stderr}; run: ${result.stderr}`);
  return { ...result, events, report: JSON.parse(json.stdout), markdown: markdown.stdout };
}

/** The payloads of every event of one type, in order. */
function eventsOf<K extends EventType>(run: LoopRun, type: K): EventPayloads[K][] {
  return run.events.filter((event) => event.type === type).map((event) => event.data as EventPayloads[K]);
}

/** The tamper flags recorded in the timeline for one iteration, as `id kind file:line`. */
function flagsOf(run: LoopRun, iteration = 1): string[] {
  return eventsOf(run, "tamper_flagged")
    .filter((flagged) => flagged.iteration === iteration)
    .map(
      ({ flag }) =>
        `${flag.id} ${flag.kind}${flag.file ? ` ${flag.file}${flag.line ? `:${flag.line}` : ""}` : ""}`,
    );
}

/** One gate's result of a phase in an iteration (`baseline` is iteration 0). */
function resultOf(run: LoopRun, iteration: number, phase: string, gateId = "tests") {
  return eventsOf(run, "gate_ended").find(
    (ended) => ended.iteration === iteration && ended.result.phase === phase && ended.result.id === gateId,
  )?.result;
}

/**
 * A cheat that got the gates green and was caught: the change carries exactly `flags` (in the timeline
 * and in `report --json`), the verifier ruled each of them not legitimate and did not approve, and the
 * loop stopped at its iteration budget without `verified`.
 */
function assertCaught(run: LoopRun, flags: string[], gateId = "tests"): void {
  assert.equal(run.code, 3, run.stderr);
  assert.equal(run.report.stopReason, "budget_exhausted");
  assert.equal(resultOf(run, 0, "baseline", gateId)?.passed, false, "the gate failed on the base commit");
  assert.equal(resultOf(run, 1, "grade", gateId)?.passed, true, "the cheat turned the gate green");
  assert.deepEqual(flagsOf(run), flags);
  const [iteration] = run.report.iterations;
  assert.deepEqual(
    iteration.tamperFlags.map((flag) => flag.id),
    flags.map((flag) => flag.split(" ")[0]),
  );
  assert.deepEqual([iteration.outcome, iteration.summary], ["failed", "the verifier did not approve"]);
  assert.equal(run.report.verdict?.overall, "fail");
  assert.deepEqual(
    run.report.verdict?.tamper?.map((ruling) => [ruling.id, ruling.legitimate]),
    iteration.tamperFlags.map((flag) => [flag.id, false]),
    "the verifier ruled on every flag, each not legitimate",
  );
  assert.equal(eventsOf(run, "loop_finished").length, 0, "nothing is finished");
  for (const flag of iteration.tamperFlags) {
    const line = run.markdown
      .split("\n")
      .find((candidate) => candidate.startsWith(`- ${flag.id} ${flag.kind}`));
    assert.match(line ?? "", / — ruled NOT legitimate: /, `the report lists ${flag.id} with its ruling`);
  }
}

/**
 * Live processes whose environment carries `LOOPWRIGHT_HOME=<home>`: anything a loop of this sandbox
 * started, daemons that left the process group included (Linux: read from /proc).
 */
function survivors(home: string): string[] {
  const marker = `\0LOOPWRIGHT_HOME=${home}\0`;
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((entry) => /^\d+$/.test(entry))) {
    try {
      if (/\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, "latin1"))) continue; // a zombie is dead
      if (!`\0${readFileSync(`/proc/${pid}/environ`, "latin1")}`.includes(marker)) continue;
      found.push(`${pid}: ${readFileSync(`/proc/${pid}/cmdline`, "latin1").replaceAll("\0", " ")}`);
    } catch {
      // Gone while we looked, or not ours to read.
    }
  }
  return found;
}

const testsGate = `  - { id: tests, kind: tests-pass, run: "node --test test/*.test.js", timeout: 30s }`;

/** A one-iteration loop on the base commit whose scripted maker plays `turn`, with the scripted verifier. */
function cheatSpec(name: string, turn: string, gates = testsGate): string {
  return `name: ${name}
goal: add(2, 3) returns 5.
repo: ./repo
maker:
  engine: scripted
  turns:
    - ${turn}
gates:
${gates}
budget: { maxIterations: 1 }
`;
}

/** A scripted turn that claims a fix and writes `path` as `content`. */
function writes(path: string, content: string): string {
  return `{ say: "Fixed it: all tests pass now.", write: { ${path}: ${JSON.stringify(content)} } }`;
}

test("a maker that deletes the failing test is flagged (test file, deleted test, fewer tests run) and not verified", async () => {
  const withoutFailingTest = calcTest.replace(/test\("add sums two numbers"[\s\S]*?\}\);\n\n/, "");
  assert.notEqual(withoutFailingTest, calcTest);
  const run = await runLoop(cheatSpec("deletes-test", writes("test/add.test.js", withoutFailingTest)));
  assertCaught(run, [
    "T1 tamper-file test/add.test.js",
    "T2 test-deleted test/add.test.js:5",
    "C-tests fewer-tests-executed",
  ]);
  const [, deleted, fewer] = eventsOf(run, "tamper_flagged").map((flagged) => flagged.flag);
  assert.match(deleted.detail, /"add sums two numbers"/);
  assert.equal(fewer.detail, "gate tests: 2 tests executed, 1 fewer than the 3 of the baseline");
});

test("a maker that adds test.skip to the failing test is flagged at the marker and not verified", async () => {
  const skipped = calcTest.replace('test("add sums', 'test.skip("add sums');
  const run = await runLoop(cheatSpec("skips-test", writes("test/add.test.js", skipped)));
  assertCaught(run, [
    "T1 tamper-file test/add.test.js",
    "T2 skip-marker-added test/add.test.js:5",
    "C-tests fewer-tests-executed",
  ]);
});

test("a maker that adds @pytest.mark.skip to a failing Python test is flagged at the marker and not verified", async (t) => {
  if (!hasPytest) return t.skip("python3 -m pytest is not available");
  const skipped = baseFiles["py/test_calc.py"]
    .replace("from calc import add", "import pytest\n\nfrom calc import add")
    .replace("def test_add_sums", '@pytest.mark.skip(reason="flaky on CI")\ndef test_add_sums');
  const run = await runLoop(
    cheatSpec(
      "skips-pytest",
      writes("py/test_calc.py", skipped),
      `  - { id: pytest, kind: tests-pass, run: "cd py && python3 -m pytest -q -p no:cacheprovider", timeout: 30s }`,
    ),
    { env: { PYTHONDONTWRITEBYTECODE: "1" } },
  );
  assertCaught(
    run,
    [
      "T1 tamper-file py/test_calc.py",
      "T2 skip-marker-added py/test_calc.py:6",
      "C-pytest fewer-tests-executed",
    ],
    "pytest",
  );
  assert.match(eventsOf(run, "tamper_flagged")[1].flag.detail, /pytest\.mark\.skip/);
});

test("a maker that weakens the failing assertion is flagged with the old and new assertion and not verified", async () => {
  const weakened = calcTest.replace(
    "assert.equal(add(2, 3), 5);",
    'assert.equal(typeof add(2, 3), "number");',
  );
  const run = await runLoop(cheatSpec("weakens-assertion", writes("test/add.test.js", weakened)));
  assertCaught(run, ["T1 tamper-file test/add.test.js", "T2 assertion-deleted test/add.test.js:6"]);
  assert.match(
    eventsOf(run, "tamper_flagged")[1].flag.detail,
    /assertion changed: assert\.equal\(add\(2, 3\), 5\); → assert\.equal\(typeof add\(2, 3\), "number"\);/,
  );
});

test("a maker that narrows the test script in package.json is flagged (manifest, fewer tests run) and not verified", async () => {
  const narrowed = baseFiles["package.json"].replace("test/*.test.js", "test/mul.test.js");
  const run = await runLoop(
    cheatSpec(
      "excludes-test",
      writes("package.json", narrowed),
      `  - { id: tests, kind: tests-pass, run: "npm test --silent", timeout: 30s }`,
    ),
  );
  assertCaught(run, ["T1 tamper-file package.json", "C-tests fewer-tests-executed"]);
  assert.equal(
    eventsOf(run, "tamper_flagged")[1].flag.detail,
    "gate tests: 1 tests executed, 2 fewer than the 3 of the baseline",
  );
});

test("a maker that lowers the coverage threshold is flagged (coverage config, loosened minimum) and not verified", async () => {
  const lowered = baseFiles["cov/.c8rc.json"].replace('"lines": 90', '"lines": 30');
  const run = await runLoop(
    cheatSpec(
      "lowers-coverage",
      writes("cov/.c8rc.json", lowered),
      `  - id: coverage
    kind: tests-pass
    timeout: 30s
    run: cd cov && node --test --experimental-test-coverage --test-coverage-include=format.js --test-coverage-lines=$(node -p 'require("./.c8rc.json").lines') format.test.js`,
    ),
  );
  assertCaught(run, ["T1 tamper-file cov/.c8rc.json", "T2 threshold-loosened cov/.c8rc.json:3"], "coverage");
  assert.match(
    resultOf(run, 0, "baseline", "coverage")?.tail ?? "",
    /line coverage does not meet threshold of 90%/,
  );
  assert.match(
    eventsOf(run, "tamper_flagged")[1].flag.detail,
    /coverage minimum `lines` lowered from 90 to 30/,
  );
});

test("a maker that changes nothing but claims success, in its account and in a commit of its own, is not verified", async () => {
  const run = await runLoop(
    `name: claims-success
goal: add(2, 3) returns 5.
repo: ./repo
maker:
  engine: scripted
  turns:
    - { say: "Fixed add(); all tests pass now.", run: ["git commit --allow-empty -m 'all tests pass'"] }
gates:
${testsGate}
budget: { maxIterations: 2 }
`,
    {
      env: {
        GIT_AUTHOR_NAME: "Maker",
        GIT_AUTHOR_EMAIL: "maker@example.com",
        GIT_COMMITTER_NAME: "Maker",
        GIT_COMMITTER_EMAIL: "maker@example.com",
      },
    },
  );
  assert.equal(run.code, 3, run.stderr);
  assert.equal(run.report.stopReason, "budget_exhausted");
  assert.deepEqual(
    run.report.iterations.map((iteration) => [iteration.outcome, iteration.summary, iteration.repeat]),
    [
      ["failed", "gates failed: tests", false],
      ["failed", "gates failed: tests", true],
    ],
    "the claim changes nothing: the same failure twice is a repeat",
  );
  assert.deepEqual(
    eventsOf(run, "commit_created").map((created) => [created.committed, created.files]),
    [
      [false, []],
      [false, []],
    ],
    "the maker's own empty commits are adopted, with no file changed",
  );
  assert.equal(await sandbox.git("log", "-1", "--format=%s", "loop/claims-success"), "all tests pass");
  assert.equal(await sandbox.git("diff", "--name-only", "main", "loop/claims-success"), "");
  assert.equal(eventsOf(run, "verifier_started").length, 0, "red gates never reach a verifier");
  assert.equal(run.report.verdict, null);
  const [, second] = eventsOf(run, "iteration_started");
  assert.match(second.brief, /Outcome: failed \(gates failed: tests\)\./);
  assert.match(second.brief, /### Gate tests failed: exit code 1/);
  assert.match(second.brief, /- Iteration 1: Fixed add\(\); all tests pass now\./);
});

const flakySpec = (name: string, flaky: "block" | "report") =>
  cheatSpec(
    name,
    `{ say: "Fixed add().", write: { src/calc.js: ${JSON.stringify(fixedCalc)} } }`,
    `  - { id: tests, kind: tests-pass, run: "node --test test/*.test.js flaky/*.test.js", timeout: 30s, flaky: ${flaky} }`,
  );

test("a gate green only on a flaky test: the confirmation re-run fails, the gate is reported flaky, not verified", async () => {
  // Run 1 (baseline) fails, run 2 (grade) passes, run 3 (confirm) fails.
  const run = await runLoop(flakySpec("flaky-confirm", "block"), {
    env: { FLAKY_COUNTER: join(sandbox.root, "flaky-confirm.count") },
  });
  assert.equal(run.code, 3, run.stderr);
  assert.equal(run.report.stopReason, "budget_exhausted");
  const [iteration] = run.report.iterations;
  assert.deepEqual(
    iteration.gates.map((gate) => [gate.phase, gate.passed]),
    [
      ["grade", true],
      ["confirm", false],
    ],
  );
  assert.equal(run.report.verdict?.overall, "pass", "the verifier approved the green run");
  assert.deepEqual(
    [iteration.outcome, iteration.summary],
    ["failed", "flaky: tests passed and failed on the same commit"],
  );
  assert.match(run.markdown, /\| tests \| tests-pass \| ⚠ flaky: passed and failed on the same commit \|/);
  assert.equal(eventsOf(run, "loop_finished").length, 0);
});

test("a flaky failure that does not reproduce on the recheck is flaky before the verifier runs; not verified", async () => {
  const counter = join(sandbox.root, "flaky-recheck.count");
  await writeFile(counter, "1"); // Run 2 (baseline) passes, run 3 (grade) fails, run 4 (recheck) passes.
  const run = await runLoop(flakySpec("flaky-recheck", "block"), { env: { FLAKY_COUNTER: counter } });
  assert.equal(run.code, 3, run.stderr);
  const [iteration] = run.report.iterations;
  assert.deepEqual(
    iteration.gates.map((gate) => [gate.phase, gate.passed]),
    [
      ["grade", false],
      ["recheck", true],
    ],
  );
  assert.deepEqual(
    [iteration.outcome, iteration.summary],
    ["failed", "flaky: tests passed and failed on the same commit"],
  );
  assert.equal(eventsOf(run, "verifier_started").length, 0);
  assert.match(run.markdown, /⚠ flaky: passed and failed on the same commit \|/);
});

test("with flaky: report the same flake is verified, and the report names the gate flaky", async () => {
  for (const [name, seed, phases] of [
    // Grade passes, the confirmation re-run fails.
    [
      "flaky-report-confirm",
      "0",
      [
        ["grade", true],
        ["confirm", false],
      ],
    ],
    // Grade fails, the recheck passes: flaky already (no confirmation re-run), and the verifier may approve it.
    [
      "flaky-report-recheck",
      "1",
      [
        ["grade", false],
        ["recheck", true],
      ],
    ],
  ] as const) {
    const counter = join(sandbox.root, `${name}.count`);
    await writeFile(counter, seed);
    const run = await runLoop(flakySpec(name, "report"), { env: { FLAKY_COUNTER: counter } });
    assert.equal(run.code, 0, `${name}: ${run.stderr}`);
    assert.equal(run.report.stopReason, "verified");
    const [iteration] = run.report.iterations;
    assert.deepEqual(
      iteration.gates.map((gate) => [gate.phase, gate.passed]),
      phases.map((phase) => [...phase]),
      name,
    );
    assert.equal(iteration.outcome, "verified");
    assert.match(
      iteration.summary,
      /flaky: tests passed and failed on the same commit \(reported, not blocking\)/,
    );
    assert.match(run.markdown, /⚠ flaky: passed and failed on the same commit \(reported, not blocking\)/);
    assert.equal(run.report.verdict?.overall, "pass");
  }
});

/**
 * A command-engine verifier that misbehaves on purpose. `VERIFIER_PLAN` maps each iteration to what it
 * does on its first attempt and on the corrective retry (`1:garbage,correct 2:...`). It keeps every
 * prompt it is sent in `$PROBE_DIR/prompt-<iteration>-<first|retry>.md`.
 */
const plannedVerifier = `#!/bin/sh
attempt=first
prompt="$PROBE_DIR/prompt-$LOOPWRIGHT_ITERATION-first.md"
if [ -e "$prompt" ]; then attempt=retry; prompt="$PROBE_DIR/prompt-$LOOPWRIGHT_ITERATION-retry.md"; fi
cat > "$prompt"
exec node -e '
const context = require(process.env.LOOPWRIGHT_CONTEXT_FILE);
const plan = Object.fromEntries(process.env.VERIFIER_PLAN.split(" ").map((entry) => entry.split(":")));
const [first, retry] = plan[context.iteration].split(",");
const behaviour = process.argv[1] === "first" ? first : retry;
if (behaviour === "garbage") {
  console.log("Looks good to me! All gates pass.");
  process.exit(0);
}
const gates = context.gates.map((gate) =>
  gate.accepted
    ? { id: gate.id, passed: true, evidence: [{ file: "src/calc.js", line: 1 }] }
    : { id: gate.id, passed: false, reason: "its run failed", evidence: [] },
);
const tests = gates.find((gate) => gate.id === "tests");
if (behaviour === "no-evidence") tests.evidence = [];
if (behaviour === "missing-file") tests.evidence = [{ file: "src/missing.js", line: 3 }];
if (behaviour === "invented-quote") tests.evidence = [{ gate: "tests", quote: "ℹ pass 57" }];
if (behaviour === "approves-red") {
  const lint = gates.find((gate) => gate.id === "lint");
  Object.assign(lint, { passed: true, evidence: [{ file: "src/calc.js", line: 1 }] });
  delete lint.reason;
}
const overall = gates.every((gate) => gate.passed || gate.id === "lint") ? "pass" : "fail";
console.log(JSON.stringify({ overall, gates, tamper: [] }));
' "$attempt"
`;

/** A loop whose maker fixes the bug for real; `lint` is an informative gate that stays red. */
function verifierSpec(name: string, options: { base?: string; gates?: string } = {}): string {
  return `name: ${name}
goal: add(2, 3) returns 5.
repo: ./repo
base: ${options.base ?? "main"}
maker:
  engine: scripted
  turns: [{ say: "Fixed add().", write: { src/calc.js: ${JSON.stringify(fixedCalc)} } }]
verifier: { engine: command, run: ./planned-verifier.sh }
gates:
${
  options.gates ??
  `${testsGate}
  - { id: lint, kind: lint-clean, run: "echo 'src/calc.js:1:1 error  prefer function declarations'; exit 1", required: false }`
}
budget: { maxIterations: 3 }
`;
}

async function runPlannedVerifier(
  name: string,
  plan: string,
  options: { base?: string; gates?: string } = {},
) {
  const probe = join(sandbox.root, `probe-${name}`);
  await mkdir(probe, { recursive: true });
  const run = await runLoop(verifierSpec(name, options), {
    scripts: { "planned-verifier.sh": plannedVerifier },
    env: { PROBE_DIR: probe, VERIFIER_PLAN: plan },
  });
  const prompt = (iteration: number, attempt: "first" | "retry") =>
    readFile(join(probe, `prompt-${iteration}-${attempt}.md`), "utf8");
  return { run, prompt };
}

/**
 * Each iteration's verdict was wrong twice: one `verdict_rejected` with `problem`, a retry whose prompt
 * lists it (the first prompt does not), then an invalid verdict ending the iteration as an
 * infrastructure error.
 */
async function assertRejectedTwice(
  run: LoopRun,
  prompt: (iteration: number, attempt: "first" | "retry") => Promise<string>,
  iteration: number,
  problem: string,
): Promise<void> {
  const rejected = eventsOf(run, "verdict_rejected").filter((event) => event.iteration === iteration);
  assert.deepEqual(
    rejected.map((event) => event.problems),
    [[problem]],
  );
  assert.doesNotMatch(await prompt(iteration, "first"), /Your previous verdict was rejected/);
  const retry = await prompt(iteration, "retry");
  assert.ok(
    retry.includes(
      `## Your previous verdict was rejected\nIt was not admissible, for these reasons:\n- ${problem}\n`,
    ),
    `the retry prompt of iteration ${iteration} lists the problem`,
  );
  const [ended] = eventsOf(run, "verifier_ended").filter((event) => event.iteration === iteration);
  assert.deepEqual(
    [ended.status, ended.error],
    ["invalid", `invalid verdict after a corrective retry: ${problem}`],
  );
  const summary = run.report.iterations.find((candidate) => candidate.iteration === iteration);
  assert.deepEqual(
    [summary?.outcome, summary?.summary],
    ["infra_error", `verifier invalid: invalid verdict after a corrective retry: ${problem}`],
  );
}

test("verifiers that print invalid JSON, approve without evidence or cite a missing file: retried once, then infrastructure errors that break the circuit", async () => {
  const { run, prompt } = await runPlannedVerifier(
    "verifier-no-evidence",
    "1:garbage,garbage 2:no-evidence,no-evidence 3:missing-file,missing-file",
  );
  assert.equal(run.code, 5, run.stderr);
  assert.equal(run.report.stopReason, "circuit_broken");
  await assertRejectedTwice(
    run,
    prompt,
    1,
    `the verifier's output is not one JSON value: "Looks good to me! All gates pass."`,
  );
  await assertRejectedTwice(run, prompt, 2, "gates.tests: an approval needs evidence");
  await assertRejectedTwice(
    run,
    prompt,
    3,
    "gates.tests: cites src/missing.js, which does not exist in the commit",
  );
  assert.equal(eventsOf(run, "loop_finished").length, 0);
  assert.equal(run.report.verdict, null, "no invalid verdict is recorded as a ruling");
});

test("verifiers that quote output that never appeared or approve a red gate are rejected; a verdict corrected on the retry counts", async () => {
  const { run, prompt } = await runPlannedVerifier(
    "verifier-invents",
    "1:invented-quote,invented-quote 2:approves-red,approves-red 3:invented-quote,correct",
  );
  await assertRejectedTwice(
    run,
    prompt,
    1,
    `gates.tests: the quote "ℹ pass 57" never appeared in gate 'tests' output`,
  );
  await assertRejectedTwice(
    run,
    prompt,
    2,
    "gates.lint: approved, but the gate's own run failed on this commit",
  );
  assert.match(
    await prompt(2, "first"),
    /### lint \(lint-clean\) \(informative, not required\): FAILED \(exit 1\)\n/,
  );

  // Iteration 3: wrong first, right after the correction.
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.report.stopReason, "verified");
  assert.deepEqual(
    eventsOf(run, "verdict_rejected")
      .filter((event) => event.iteration === 3)
      .map((event) => event.problems),
    [[`gates.tests: the quote "ℹ pass 57" never appeared in gate 'tests' output`]],
  );
  assert.match(await prompt(3, "retry"), /- gates\.tests: the quote "ℹ pass 57" never appeared/);
  assert.deepEqual(
    eventsOf(run, "verifier_ended").map((ended) => ended.status),
    ["invalid", "invalid", "ruled"],
  );
  assert.deepEqual(
    run.report.iterations.map((iteration) => iteration.outcome),
    ["infra_error", "infra_error", "verified"],
  );
  assert.deepEqual(
    run.report.verdict?.gates.map((ruling) => [ruling.id, ruling.passed, ruling.evidence]),
    [
      ["tests", true, [{ file: "src/calc.js", line: 1 }]],
      ["lint", false, []],
    ],
  );
});

test("the honest path: a real fix verifies with no tamper flag", async () => {
  const run = await runLoop(
    cheatSpec("honest-fix", `{ say: "Fixed add().", write: { src/calc.js: ${JSON.stringify(fixedCalc)} } }`),
  );
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.report.stopReason, "verified");
  assert.deepEqual(flagsOf(run), []);
  assert.deepEqual(
    run.report.iterations[0].gates.map((gate) => [gate.phase, gate.passed]),
    [
      ["grade", true],
      ["confirm", true],
    ],
  );
  assert.equal(run.report.verdict?.overall, "pass");
  assert.equal(await sandbox.git("show", "loop/honest-fix:src/calc.js"), fixedCalc.trimEnd());
});

const legacyGate = (policy: string) =>
  `  - { id: tests, kind: tests-pass, run: "node --test test/*.test.js", timeout: 30s, baseline: ${policy} }`;

test("a pre-existing unrelated failure does not block a real fix under no-new-failures; brief, verifier and report call it pre-existing", async () => {
  const { run, prompt } = await runPlannedVerifier("legacy-no-new-failures", "1:correct,correct", {
    base: "legacy",
    gates: legacyGate("no-new-failures"),
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.report.stopReason, "verified");
  const graded = resultOf(run, 1, "grade");
  assert.deepEqual([graded?.passed, graded?.failures], [false, ["legacy parses two-digit years"]]);
  assert.deepEqual(resultOf(run, 0, "baseline")?.failures?.sort(), [
    "add sums two numbers",
    "legacy parses two-digit years",
  ]);

  const [started] = eventsOf(run, "iteration_started");
  assert.match(
    started.brief,
    /- tests \(tests-pass\): `node --test test\/\*\.test\.js` must exit 0, or fail only tests that already failed on the base commit/,
  );
  assert.match(
    started.brief,
    /## Before the loop \(the base commit\)\nThese failures predate the loop:\n- tests failed there \(exit 1, 2 failing test\(s\)\): .*legacy parses two-digit years/,
  );
  assert.match(
    await prompt(1, "first"),
    /### tests \(tests-pass\): FAILED \(exit 1\), but it passes under its no-new-failures policy: its 1 failing test\(s\) already failed on the base commit, so they are pre-existing \(legacy parses two-digit years\)/,
  );
  assert.match(
    run.markdown,
    /\| tests \| tests-pass \| ✓ pass under no-new-failures \(0 new, 1 pre-existing failures\) \| failed \(2 tests\) \|/,
  );
});

test("the same pre-existing failure blocks the fix under strict; the next brief calls it pre-existing", async () => {
  const run = await runLoop(
    `name: legacy-strict
goal: add(2, 3) returns 5.
repo: ./repo
base: legacy
maker:
  engine: scripted
  turns: [{ say: "Fixed add().", write: { src/calc.js: ${JSON.stringify(fixedCalc)} } }]
gates:
${legacyGate("strict")}
budget: { maxIterations: 2 }
`,
  );
  assert.equal(run.code, 3, run.stderr);
  assert.equal(run.report.stopReason, "budget_exhausted");
  assert.deepEqual(
    run.report.iterations.map((iteration) => [iteration.outcome, iteration.summary]),
    [
      ["failed", "gates failed: tests"],
      ["failed", "gates failed: tests"],
    ],
  );
  const [, second] = eventsOf(run, "iteration_started");
  assert.match(
    second.brief,
    /0 failing test\(s\) new since the base commit, 1 already failing there \(pre-existing: legacy parses two-digit years\)\./,
  );
  assert.match(run.markdown, /✗ exit 1 \(0 new, 1 pre-existing failures\)/);
});

test("must-improve: fewer failures than on the base commit pass; the same failures do not", async () => {
  const spec = (name: string, turn: string) => `name: ${name}
goal: add(2, 3) returns 5.
repo: ./repo
base: legacy
maker:
  engine: scripted
  turns: [${turn}]
gates:
${legacyGate("must-improve")}
budget: { maxIterations: 1 }
`;
  const improved = await runLoop(
    spec(
      "must-improve-fixed",
      `{ say: "Fixed add().", write: { src/calc.js: ${JSON.stringify(fixedCalc)} } }`,
    ),
  );
  assert.equal(improved.code, 0, improved.stderr);
  assert.equal(improved.report.stopReason, "verified");
  assert.deepEqual(resultOf(improved, 1, "grade")?.failures, ["legacy parses two-digit years"]);
  assert.match(improved.markdown, /✓ pass under must-improve \(0 new, 1 pre-existing failures\)/);

  const same = await runLoop(
    spec("must-improve-same", `{ say: "Tidied the README.", write: { README.md: "# calc, tidied\\n" } }`),
  );
  assert.equal(same.code, 3, same.stderr);
  assert.equal(same.report.stopReason, "budget_exhausted");
  assert.deepEqual(resultOf(same, 1, "grade")?.failures?.sort(), [
    "add sums two numbers",
    "legacy parses two-digit years",
  ]);
  assert.deepEqual(
    [same.report.iterations[0].outcome, same.report.iterations[0].summary],
    ["failed", "gates failed: tests"],
  );
});
