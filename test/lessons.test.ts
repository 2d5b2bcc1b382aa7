/**
 * Lessons learned by loops: a verifier rejection (or an illegitimate tamper flag) and a replan may
 * carry one imperative line. It is kept on the timeline, fed into the loop's later briefs, listed in
 * `show` and the report for the user to adopt, and never written into the user's files.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { FakeLoop } from "./support/fake-loop.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { loopSummary } from "./support/loop-timeline.ts";

let sandbox: Sandbox;
before(async () => {
  sandbox = await createSandbox({ "answer.txt": "0\n" });
});
after(async () => {
  await sandbox?.cleanup();
});

const rejection = {
  overall: "fail",
  gates: [{ id: "answer", passed: false, reason: "the answer is not explained" }],
  lesson: "Explain   every answer\n  in a comment beside it.",
};
const approval = {
  overall: "pass",
  gates: [{ id: "answer", passed: true, evidence: [{ file: "answer.txt", line: 1 }] }],
  lesson: "An approval teaches nothing to keep.",
};

describe("lessons learned by a loop", () => {
  test("a verifier's rejection carries a lesson: later briefs, show and the report have it; no file gets it", async () => {
    const spec = await sandbox.spec(
      `name: taught
goal: answer.txt says 42.
repo: ./repo
maker: { engine: scripted, turns: [{ write: { answer.txt: "42\\n" } }] }
verifier:
  engine: scripted
  turns:
    - { verdict: ${JSON.stringify(rejection)} }
    - { verdict: ${JSON.stringify(approval)} }
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }
budget: { maxIterations: 3 }
`,
      join(sandbox.root, "taught.yaml"),
    );
    const run = await sandbox.cli(["run", spec]);
    assert.equal(run.code, 0, run.stderr + run.stdout);

    const first = await sandbox.cli(["brief", "taught", "--iteration", "1"]);
    assert.doesNotMatch(first.stdout, /Lessons this loop learned/);
    const second = await sandbox.cli(["brief", "taught", "--iteration", "2"]);
    assert.match(
      second.stdout,
      /## Lessons this loop learned\n.*\n- Explain every answer in a comment beside it\.\n/,
    );

    const summary = await loopSummary(sandbox, "taught");
    assert.deepEqual(summary.lessons, [
      { iteration: 1, source: "verifier", text: "Explain every answer in a comment beside it." },
    ]);
    const show = await sandbox.cli(["show", "taught"]);
    assert.match(
      show.stdout,
      /lessons learned \(adopt them into LESSONS\.md yourself\):\n {2}- Explain every answer/,
    );
    const report = await sandbox.cli(["report", "taught"]);
    assert.match(
      report.stdout,
      /## Lessons learned \(to adopt into LESSONS\.md\)\n\nloopwright does not write LESSONS\.md.*\n\n- Explain every answer in a comment beside it\. _\(the verifier, iteration 1\)_/,
    );
    assert.doesNotMatch(
      report.stdout,
      /An approval teaches nothing/,
      "an approving verdict's lesson is not kept",
    );

    assert.equal(existsSync(join(sandbox.repo, "LESSONS.md")), false);
    assert.doesNotMatch(await sandbox.git("ls-tree", "-r", "--name-only", "loop/taught"), /LESSONS/);
  });

  test("a replan carries a lesson: the briefs after it have it", async () => {
    const spec = await sandbox.spec(
      `name: stuck
goal: answer.txt says 42.
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { answer.txt: "41\\n" }
      replan: { approach: "Read the gate's command first.", hypotheses: [], lesson: "Read the gate's command before you guess." }
    - write: { answer.txt: "41\\n" }
    - write: { answer.txt: "42\\n" }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }
budget: { maxIterations: 4 }
`,
      join(sandbox.root, "stuck.yaml"),
    );
    const run = await sandbox.cli(["run", spec]);
    assert.equal(run.code, 0, run.stderr + run.stdout);
    const third = await sandbox.cli(["brief", "stuck", "--iteration", "3"]);
    assert.match(third.stdout, /## Revised approach/);
    assert.match(
      third.stdout,
      /## Lessons this loop learned\n.*\n- Read the gate's command before you guess\./,
    );
    const summary = await loopSummary(sandbox, "stuck");
    assert.deepEqual(summary.lessons, [
      { iteration: 2, source: "replanner", text: "Read the gate's command before you guess." },
    ]);
  });
});

describe("which verdicts teach", () => {
  const verdictEnded = (verdict: object) =>
    new FakeLoop()
      .prepared()
      .append("iteration_started", { iteration: 1, startSha: "s", brief: "b", briefPath: "/b" })
      .append("verifier_ended", {
        iteration: 1,
        status: "ruled",
        verdict: verdict as never,
        wroteFiles: [],
        durationMs: 1,
      })
      .state().lessons;

  test("a tamper flag ruled illegitimate teaches, even when every gate passed", () => {
    const lessons = verdictEnded({
      overall: "pass",
      gates: [{ id: "tests", passed: true, evidence: [] }],
      tamper: [{ id: "T1", legitimate: false, reason: "skips a test" }],
      lesson: "Fix the code, never the test.",
    });
    assert.deepEqual(lessons, [{ iteration: 1, source: "verifier", text: "Fix the code, never the test." }]);
  });

  test("an approval does not; a blank lesson is none; a long one is cut to one line", () => {
    assert.deepEqual(verdictEnded({ overall: "pass", gates: [], lesson: "Keep going." }), []);
    assert.deepEqual(verdictEnded({ overall: "fail", gates: [], lesson: "  \n " }), []);
    const [long] = verdictEnded({ overall: "fail", gates: [], lesson: `Do ${"this ".repeat(200)}` });
    assert.equal(long.text.length, 300);
    assert.ok(long.text.endsWith("…"));
  });
});
