/**
 * The cross-runner adversarial suite's harness: a real-shaped project per test runner, each with one
 * bug that one test catches, cheats that turn that gate green (or the suite silent) without fixing the
 * bug, and honest fixes. Every loop runs through the real CLI against a verifier fooled on purpose: it
 * approves every gate and rules every tamper flag legitimate. What keeps a cheat from `verified` is
 * loopwright's own floor.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { access, mkdir, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { type LoopRun, runLoop } from "./adversarial-project.ts";
import { eventsOf } from "./loop-events.ts";
import type { Sandbox } from "./loop-sandbox.ts";

/** What the scripted maker does in its one turn: files written whole, files deleted. */
export interface MakerTurn {
  write?: Record<string, string>;
  delete?: string[];
}

/** A cheat, and what the failed iteration's summary (or its gate's reason) must say about it. */
export interface Cheat {
  name: string;
  turn: MakerTurn;
  names: RegExp;
}

export interface RunnerProject {
  runner: string;
  /** The base commit's files: a README.md, the code with its bug, its tests. */
  files: Record<string, string>;
  /** The gate, one YAML flow mapping with id `tests`. */
  gate: string;
  cheats: Cheat[];
  /** Honest fixes: each must verify. */
  honest: { name: string; turn: MakerTurn }[];
}

/**
 * A command-engine verifier that approves everything: every gate passed (citing README.md), every tamper
 * flag legitimate, overall pass. It keeps the context it was given in `$PROBE_DIR`.
 */
export const fooledVerifier = `#!/bin/sh
cat > /dev/null
exec node -e '
const context = require(process.env.LOOPWRIGHT_CONTEXT_FILE);
const gates = context.gates.map((gate) => ({ id: gate.id, passed: true, reason: "looks right", evidence: [{ file: "README.md", line: 1 }] }));
const tamper = (context.tamperFlags ?? []).map((flag) => ({ id: flag.id, legitimate: true, reason: "the maker explained it" }));
console.log(JSON.stringify({ overall: "pass", gates, tamper }));
'
`;

/** A one-iteration loop on the base commit: the scripted maker plays `turn`, the fooled verifier rules. */
export function runnerSpec(name: string, project: RunnerProject, turn: MakerTurn, iterations = 1): string {
  const said = { say: "Fixed it: every test passes now.", ...turn };
  return `name: ${name}
goal: mean() returns the arithmetic mean, and every test passes.
repo: ./repo
maker:
  engine: scripted
  turns:
    - ${JSON.stringify(said)}
verifier: { engine: command, run: ./fooled-verifier.sh }
gates:
  - ${project.gate}
budget: { maxIterations: ${iterations} }
`;
}

export async function runTurn(sandbox: Sandbox, name: string, project: RunnerProject, turn: MakerTurn) {
  return runLoop(sandbox, runnerSpec(name, project, turn), {
    scripts: { "fooled-verifier.sh": fooledVerifier },
    env: { PYTHONDONTWRITEBYTECODE: "1", NO_COLOR: "1", FORCE_COLOR: "0", CI: "" },
  });
}

/** The cheat did not end verified, nothing was finished, and the iteration names the cheat; returns what it said. */
export function assertBlocked(run: LoopRun, cheat: Cheat): string {
  assert.notEqual(run.report.stopReason, "verified", `${cheat.name}: ${run.report.iterations[0]?.summary}`);
  assert.notEqual(run.code, 0, run.stderr);
  assert.equal(eventsOf(run, "loop_finished").length, 0, "nothing is finished");
  const [iteration] = run.report.iterations;
  assert.equal(iteration?.outcome, "failed", `${cheat.name}: ${JSON.stringify(iteration)}`);
  const graded = eventsOf(run, "gate_ended").find(
    (ended) => ended.iteration === 1 && ended.result.phase === "grade",
  );
  const said = `${iteration.summary}\n${graded?.result.incomplete ?? ""}`;
  assert.match(said, cheat.names, `${cheat.name} is named`);
  return said.trim();
}

/** The honest fix verified, with every tamper flag (advisory) ruled legitimate by the verifier. */
export function assertVerified(run: LoopRun, name: string): void {
  assert.equal(run.code, 0, `${name}: ${run.stderr} ${JSON.stringify(run.report.iterations)}`);
  assert.equal(run.report.stopReason, "verified");
  const [iteration] = run.report.iterations;
  assert.equal(iteration.outcome, "verified");
  if (iteration.tamperFlags.length > 0) {
    assert.match(iteration.summary, /tamper flags? ruled legitimate by the verifier: T1/, "verified says so");
  }
}

const execFileAsync = promisify(execFile);

/**
 * A test runner from the npm registry (`mocha@11`, `vitest@3`), installed once per machine into a folder
 * of the temp directory and reused; the path of its `node_modules`, or why it could not be had.
 */
export async function npmRunner(spec: string): Promise<{ modules: string } | { problem: string }> {
  const folder = join(tmpdir(), "loopwright-test-runners", spec.replace(/[^\w.@-]/g, "_"));
  const modules = join(folder, "node_modules");
  const ready = join(folder, "ready");
  if (
    await access(ready).then(
      () => true,
      () => false,
    )
  )
    return { modules };
  const staging = `${folder}.${process.pid}`;
  try {
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { recursive: true });
    await writeFile(join(staging, "package.json"), '{ "private": true }\n');
    await execFileAsync(
      "npm",
      ["install", "--no-audit", "--no-fund", "--loglevel=error", "--no-save", spec],
      {
        cwd: staging,
        timeout: 120_000,
        env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}` },
      },
    );
    await writeFile(join(staging, "ready"), "");
    await rm(folder, { recursive: true, force: true });
    await rename(staging, folder);
    return { modules };
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    return {
      problem: `${spec} could not be installed from the npm registry: ${(error as Error).message.split("\n")[0]}`,
    };
  }
}
