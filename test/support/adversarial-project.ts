/**
 * The project the adversarial tests cheat on, and how they run and read a loop on it. The base commit
 * holds a small JavaScript project with one failing test, a Python one, a coverage check and a flaky
 * test; the optional `legacy` branch adds an unrelated failure that predates every loop based on it.
 * Each test file makes its own project (a sandbox of its own); in it every loop has its own name,
 * branch and worktrees.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmod, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { LoopEvent, RecordedTamperFlag, Verdict } from "../../src/core/events.ts";
import { tamperClassOf } from "../../src/core/tamper-flag.ts";
import { eventsOf } from "./loop-events.ts";
import { type CliResult, createSandbox, type Sandbox } from "./loop-sandbox.ts";
import { eventsIn } from "./loop-timeline.ts";
import { survivors } from "./surviving-processes.ts";

export const calcTest = `const test = require("node:test");
const assert = require("node:assert/strict");
const { add } = require("../src/calc.js");

test("add sums two numbers", () => {
  assert.equal(add(2, 3), 5);
});

test("add keeps a number plus zero", () => {
  assert.equal(add(4, 0), 4);
});
`;

export const baseFiles: Record<string, string> = {
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
export const fixedCalc = "exports.add = (a, b) => a + b;\nexports.mul = (a, b) => a * b;\n";

/** A sandbox whose repository holds the base project on `main` and, with `legacy`, the `legacy` branch. */
export async function createAdversarialProject(options: { legacy?: boolean } = {}): Promise<Sandbox> {
  const sandbox = await createSandbox(baseFiles);
  if (options.legacy) {
    await sandbox.git("checkout", "-q", "-b", "legacy");
    await sandbox.commit({ "test/legacy.test.js": legacyTest }, "a legacy test that already fails");
    await sandbox.git("checkout", "-q", "main");
  }
  return sandbox;
}

/** Whether `python3 -m pytest` runs on this machine. */
export function hasPytest(): boolean {
  try {
    execFileSync("python3", ["-m", "pytest", "--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

export interface Report {
  goal: string;
  gateStandings: { id: string; status: string; newFailures: string[]; preexistingFailures: string[] }[];
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

export interface LoopRun extends CliResult {
  events: LoopEvent[];
  /** `report <loop> --json`. */
  report: Report;
  /** `report <loop>` (Markdown). */
  markdown: string;
}

/** Node 24 (the one running this file) first on PATH: gates and scripts run the same node everywhere. */
const path = `${dirname(process.execPath)}:${process.env.PATH ?? ""}`;

/**
 * Writes the spec (and helper scripts next to it, made executable) in `sandbox`, runs the loop with
 * `--json`, asserts that no process it started survives, and returns its events and reports.
 */
export async function runLoop(
  sandbox: Sandbox,
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
  const [json, markdown] = await Promise.all([
    sandbox.cli(["report", name, "--json"]),
    sandbox.cli(["report", name]),
  ]);
  assert.equal(json.code, 0, `report ${name}: ${json.stderr}; run: ${result.stderr}`);
  return {
    ...result,
    events: eventsIn<LoopEvent>(result.stdout),
    report: JSON.parse(json.stdout),
    markdown: markdown.stdout,
  };
}

/** The tamper flags recorded in the timeline for one iteration, as `id kind file:line`. */
export function flagsOf(run: LoopRun, iteration = 1): string[] {
  return eventsOf(run, "tamper_flagged")
    .filter((flagged) => flagged.iteration === iteration)
    .map(
      ({ flag }) =>
        `${flag.id} ${flag.kind}${flag.file ? ` ${flag.file}${flag.line ? `:${flag.line}` : ""}` : ""}`,
    );
}

/** One gate's result of a phase in an iteration (`baseline` is iteration 0). */
export function resultOf(run: LoopRun, iteration: number, phase: string, gateId = "tests") {
  return eventsOf(run, "gate_ended").find(
    (ended) => ended.iteration === iteration && ended.result.phase === phase && ended.result.id === gateId,
  )?.result;
}

/**
 * A cheat that got the gates green and was caught by loopwright itself: the change carries exactly
 * `flags` (in the timeline and in `report --json`), the iteration failed on its blocking flags before
 * any verifier ran, naming each, and the loop stopped at its iteration budget without `verified`.
 */
export function assertCaught(run: LoopRun, flags: string[], gateId = "tests"): void {
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
  assert.equal(iteration.outcome, "failed");
  assert.match(iteration.summary, /^blocked by tamper flags \(decided by loopwright, not the verifier\): /);
  const blocking = iteration.tamperFlags.filter((flag) => tamperClassOf(flag.kind) === "blocking");
  assert.ok(blocking.length > 0, "at least one flag is blocking");
  for (const flag of blocking) assert.ok(iteration.summary.includes(`${flag.id} ${flag.kind}`), flag.id);
  assert.equal(eventsOf(run, "verifier_started").length, 0, "no verifier was asked");
  assert.equal(eventsOf(run, "loop_finished").length, 0, "nothing is finished");
  for (const flag of blocking) {
    const line = run.markdown
      .split("\n")
      .find((candidate) => candidate.startsWith(`- ${flag.id} ${flag.kind}`));
    assert.match(line ?? "", / — BLOCKING: failed the iteration/, `the report lists ${flag.id} as blocking`);
  }
}

/** The JavaScript project's tests as a gate: red on the base commit. */
export const testsGate = `  - { id: tests, kind: tests-pass, run: "node --test test/*.test.js", timeout: 30s }`;

/** A one-iteration loop on the base commit whose scripted maker plays `turn`, with the scripted verifier. */
export function cheatSpec(name: string, turn: string, gates = testsGate): string {
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
export function writes(path: string, content: string): string {
  return `{ say: "Fixed it: all tests pass now.", write: { ${path}: ${JSON.stringify(content)} } }`;
}
