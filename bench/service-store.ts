/**
 * A store as a long-lived service accumulates it, built fast for the `service-pages` benchmark: loops
 * created with the real `createLoop` (so each has a real spec snapshot and `loop_created`), then whole
 * timelines appended through the store API with the event types of src/core/events.ts and payloads the
 * size a real loop writes (a brief of ~1.5 KB that grows with the iterations, gate output tails of
 * ~1.5 KB, verdicts with reasons and evidence). Each loop: a baseline, then `iterations` iterations of
 * three kinds in turn (a red test gate rechecked; green gates and a verifier that rejects; red gates
 * again), the last one verified (gates confirmed, branch finished).
 */
import { createHash } from "node:crypto";
import type { EventPayloads, EventType, GatePhase, GateResult } from "../src/core/events.ts";
import { eventSchemaVersion } from "../src/core/events.ts";
import { parseSpecText } from "../src/core/spec-file.ts";
import { createLoop } from "../src/loop/create-loop.ts";
import type { LoopRecord, Store } from "../src/store/store.ts";

export interface BuiltStore {
  loops: LoopRecord[];
  events: number;
}

/** Lines of a plausible test run's output, enough for a ~1.5 KB tail. */
const testOutput = Array.from(
  { length: 30 },
  (_, line) => `ok ${line + 1} - parser handles case ${line + 1} (${(line * 7) % 40} ms)`,
).join("\n");

export async function buildServiceStore(
  store: Store,
  options: { repoRoot: string; baseSha: string; specFolder: string; loops: number; iterations: number },
): Promise<BuiltStore> {
  const loops: LoopRecord[] = [];
  let events = 0;
  for (let index = 1; index <= options.loops; index++) {
    const name = `standing-${String(index).padStart(3, "0")}`;
    const parsed = parseSpecText(specText(name, options.iterations), `${name}.yaml`, options.specFolder);
    const loop = await createLoop(
      store,
      { ...parsed, specPath: `${options.specFolder}/${name}.yaml` },
      options.repoRoot,
      options.baseSha,
    );
    loops.push(loop);
    events += 1 + (await appendTimeline(store, loop, options));
  }
  return { loops, events };
}

function specText(name: string, iterations: number): string {
  return `name: ${name}
goal: >-
  Make the parser accept every form of the configuration file that the documentation shows, with a
  test for each, without changing the public API.
repo: ./repo
maker: { engine: scripted, turns: [{ write: { count.txt: "1\\n" } }] }
gates:
  - { id: tests, kind: tests-pass, run: "npm test" }
  - { id: lint, kind: lint-clean, run: "npm run lint" }
budget: { maxIterations: ${iterations} }
`;
}

async function appendTimeline(
  store: Store,
  loop: LoopRecord,
  options: { repoRoot: string; baseSha: string; iterations: number },
): Promise<number> {
  let count = 0;
  const append = async <K extends EventType>(type: K, data: EventPayloads[K]) => {
    await store.appendEvent(loop.id, type, data as Record<string, unknown>, eventSchemaVersion);
    count++;
  };
  const folder = `/home/owner/.loopwright/loops/${loop.id}`;
  const runId = `${loop.id.slice(-8)}-run1`;
  const gate = (
    id: string,
    phase: GatePhase,
    sha: string,
    iteration: number,
    passed: boolean,
  ): GateResult => ({
    id,
    kind: id === "tests" ? "tests-pass" : "lint-clean",
    command: id === "tests" ? "npm test" : "npm run lint",
    phase,
    sha,
    exitCode: passed ? 0 : 1,
    passed,
    timedOut: false,
    durationMs: 800 + ((iteration * 37) % 400),
    logPath: `${folder}/iterations/${iteration}/gates-${phase}/${id}.log`,
    tail: passed ? testOutput : `${testOutput}\nnot ok 31 - parser handles nested tables\n# fail 1`,
    survivorsKilled: 0,
    ...(id === "tests"
      ? { testsExecuted: 31, failures: passed ? [] : ["parser handles nested tables"] }
      : {}),
  });
  const runGate = async (id: string, phase: GatePhase, sha: string, iteration: number, passed: boolean) => {
    await append("gate_started", { iteration, gateId: id, phase, sha });
    await append("gate_ended", { iteration, result: gate(id, phase, sha, iteration, passed) });
  };

  await append("run_started", { runId, pid: 4242, host: "bench", command: "run" });
  await append("engines_resolved", { maker: "scripted", verifier: "scripted", warnings: [] });
  await append("loop_prepared", {
    makerWorktree: `${folder}/worktrees/maker`,
    gateWorktree: `${folder}/worktrees/gates`,
    baseSha: options.baseSha,
  });
  await runGate("tests", "baseline", options.baseSha, 0, false);
  await runGate("lint", "baseline", options.baseSha, 0, true);

  let startSha = options.baseSha;
  let history = "";
  for (let iteration = 1; iteration <= options.iterations; iteration++) {
    const last = iteration === options.iterations;
    const sha = createHash("sha1").update(`${loop.id}/${iteration}`).digest("hex");
    await append("iteration_started", {
      iteration,
      startSha,
      brief: brief(loop.name, iteration, options.iterations, history),
      briefPath: `${folder}/iterations/${iteration}/brief.md`,
    });
    await append("maker_started", { iteration, attempt: 1, turnNumber: iteration });
    await append("maker_ended", {
      iteration,
      status: "completed",
      account: `Handled the nested-table form in src/parser.ts and added a test for it (attempt ${iteration}).`,
      exitCode: 0,
      durationMs: 45_000 + ((iteration * 911) % 30_000),
      costUsd: 0.08 + (iteration % 7) / 100,
      usage: { inputTokens: 42_000 + iteration * 10, outputTokens: 3_100, cachedInputTokens: 30_000 },
    });
    const files = ["src/parser.ts", "test/parser.test.ts"];
    await append("commit_created", { iteration, sha, committed: true, files });
    await append("change_screened", {
      iteration,
      sha,
      changedFiles: files,
      scopeViolations: [],
      protectedFiles: [],
      diffHash: createHash("sha256").update(sha).digest("hex"),
      diffPath: `${folder}/iterations/${iteration}/diff.patch`,
    });
    const green = last || iteration % 3 === 0;
    await runGate("tests", "grade", sha, iteration, green);
    await runGate("lint", "grade", sha, iteration, true);
    if (!green) {
      await runGate("tests", "recheck", sha, iteration, false);
      await append("iteration_ended", {
        iteration,
        outcome: "failed",
        failingGates: ["tests"],
        fingerprint: createHash("sha1")
          .update(`fp${iteration % 5}`)
          .digest("hex")
          .slice(0, 16),
        repeat: false,
        summary: "gates failed: tests",
      });
      history = "The test gate failed: parser handles nested tables.";
    } else {
      await append("verifier_started", { iteration, sha, turnNumber: Math.ceil(iteration / 3) });
      await append("verifier_ended", {
        iteration,
        status: "ruled",
        verdict: {
          overall: last ? "pass" : "fail",
          gates: [
            {
              id: "tests",
              passed: last,
              reason: last
                ? "Every documented form has a test and the suite passes."
                : "The suite passes but the inline-table form in the documentation has no test; the new test only covers nested tables.",
              evidence: [
                { file: "test/parser.test.ts", line: 40 + iteration },
                { gate: "tests", quote: "ok 30 - parser handles case 30" },
              ],
            },
            {
              id: "lint",
              passed: true,
              reason: "Lint is clean.",
              evidence: [{ gate: "lint", quote: "0 problems" }],
            },
          ],
          tamper: [],
          notes: "Checked the diff against the documentation's examples.",
        },
        wroteFiles: [],
        durationMs: 20_000 + ((iteration * 313) % 10_000),
        costUsd: 0.05,
        usage: { inputTokens: 25_000, outputTokens: 1_200 },
      });
      if (last) {
        await runGate("tests", "confirm", sha, iteration, true);
        await runGate("lint", "confirm", sha, iteration, true);
      }
      await append("iteration_ended", {
        iteration,
        outcome: last ? "verified" : "failed",
        failingGates: [],
        repeat: false,
        summary: last
          ? "every gate passed, again on a re-run, and the verifier approved"
          : "the verifier rejected: tests",
      });
      history = "The verifier rejected: the inline-table form has no test.";
    }
    startSha = sha;
  }
  await append("loop_finished", {
    action: "branch",
    branch: `loop/${loop.name}`,
    sha: startSha,
    pushed: false,
  });
  await append("loop_stopped", {
    reason: "verified",
    message: `verified at iteration ${options.iterations}`,
  });
  await append("run_ended", { runId, exit: "verified" });
  return count;
}

/** A brief shaped like the controller's: goal, definition of done, rules, and what happened last time. */
function brief(name: string, iteration: number, of: number, history: string): string {
  return `# Loop ${name}: iteration ${iteration} of at most ${of}

## Goal
Make the parser accept every form of the configuration file that the documentation shows, with a test
for each, without changing the public API.

## Definition of done
- tests (tests-pass): \`npm test\` must exit 0
- lint (command): \`npm run lint\` must exit 0
- verifier-approves: an independent verifier reviews the change against the goal and rules on every gate.

## Working rules
- Work only in this repository and only toward the goal above.
- Do not modify, skip or weaken tests or gate configuration to make a gate pass.
- Commit nothing yourself: loopwright commits your working tree after your turn.
- When you are done, say in one paragraph what you changed and why.

## Previous iteration
${history || "This is the first iteration."}

## Failing tests last time
${history ? "- parser handles nested tables\n  expected { a: { b: 1 } }, got { 'a.b': 1 }" : "none"}
`;
}
