import assert from "node:assert/strict";
import { test } from "node:test";
import { type BriefInputs, buildBrief } from "../src/loop/brief.ts";
import { FakeLoop, fakeSpec } from "./support/fake-loop.ts";

/** The brief the controller would send for the next iteration of `loop`. */
function nextBrief(loop: FakeLoop, inputs: BriefInputs = {}): string {
  const state = loop.state();
  return buildBrief(state, (state.iterations.at(-1)?.number ?? 0) + 1, inputs);
}

test("the goal reaches the brief verbatim, with the iteration and its budget", () => {
  const goal =
    'The parser tests pass.\n- `parse("1+2")` returns 3\n    (keep the old API) & <no> *changes*\n';
  const brief = nextBrief(new FakeLoop(fakeSpec({ goal })).prepared());
  assert.ok(brief.includes(`## Goal\n${goal.trimEnd()}\n`), brief);
  assert.match(brief, /^# Loop fix-parser: iteration 1 of at most 3\n/);
  const unlimited = nextBrief(new FakeLoop(fakeSpec({ budget: { maxIterations: 0 } })));
  assert.match(unlimited, /^# Loop fix-parser: iteration 1\n/);
});

test("the definition of done lists every gate with its pinned command, and the verifier", () => {
  const spec = fakeSpec({
    gates: [
      { id: "tests", kind: "tests-pass", run: "node --test test/parse.test.ts" },
      { id: "perf", kind: "eval-script", run: "node bench/score.js", required: false },
      { id: "rollback", kind: "agent-check", assert: "The migration can be rolled back." },
    ],
  });
  const brief = nextBrief(new FakeLoop(spec));
  assert.match(brief, /- tests \(tests-pass\): `node --test test\/parse.test.ts` must exit 0/);
  assert.match(
    brief,
    /- perf \(eval-script\) \(informative, not required\): `node bench\/score.js` must exit 0/,
  );
  assert.match(brief, /- rollback \(agent-check\): The migration can be rolled back\./);
  assert.match(brief, /- verifier-approves: an independent verifier/);
  assert.match(brief, /## Working rules\n- Work only in this repository folder/);
});

test("the first brief has no history: no failures, approaches or steering", () => {
  const brief = nextBrief(new FakeLoop().prepared());
  assert.doesNotMatch(brief, /What happened|Approaches already tried|Steering|Revised approach|LESSONS/);
});

test("the previous iteration's failing gates come with exit codes, commands, log paths and output tails", () => {
  const loop = new FakeLoop().prepared().iteration().makerEnded().committed().screened();
  loop.gateFailed("tests", { exitCode: 2, tail: "not ok 3 - parses negative numbers\n# fail 1" });
  loop.gatePassed("lint").endIteration();
  const brief = nextBrief(loop);
  assert.match(brief, /## What happened in iteration 1\nOutcome: failed \(gates failed: tests\)\./);
  assert.match(brief, /### Gate tests failed: exit code 2\nCommand: `node --test`/);
  assert.match(brief, /Full log: \/home\/iterations\/1\/tests-grade\.log/);
  assert.match(brief, /```\nnot ok 3 - parses negative numbers\n# fail 1\n```/);
  assert.doesNotMatch(brief, /Gate lint failed/);
});

test("a gate that timed out says so; a gate that flipped on the re-run says which run failed", () => {
  const timedOut = new FakeLoop().prepared().iteration().makerEnded().committed().screened();
  timedOut.gateFailed("tests", { exitCode: null, timedOut: true }).gatePassed("lint").endIteration();
  assert.match(nextBrief(timedOut), /### Gate tests failed: timed out/);

  const flaky = new FakeLoop().prepared().iteration().makerEnded().committed().screened().gatesPassed();
  flaky.verifierRuled("pass").gatePassed("tests", "confirm");
  flaky.gateFailed("lint", { phase: "confirm", exitCode: 1 }).endIteration();
  assert.match(
    nextBrief(flaky),
    /### Gate lint is flaky: it failed on the confirmation re-run \(exit code 1\)\n[\s\S]*FLAKY, not a failure that reproduces: this gate passed and failed on the same commit \(passed on the graded run\)/,
  );
});

test("a red gate that passes on its recheck is presented as flaky, not as a failure to chase", () => {
  const loop = new FakeLoop().prepared().iteration().makerEnded().committed().screened();
  loop.gateFailed("tests", { recheck: "pass", failures: ["settles the queue"] }).gatePassed("lint");
  loop.endIteration();
  const brief = nextBrief(loop);
  assert.match(brief, /### Gate tests is flaky: it failed \(exit code 1\)/);
  assert.match(brief, /FLAKY, not a failure that reproduces: .*\(passed on the recheck run\)/);
  assert.doesNotMatch(brief, /### Gate tests failed/);
});

test("a blocking tamper flag is in the next brief with its place and detail, marked blocking", () => {
  const loop = new FakeLoop().prepared().iteration().makerEnded().committed(["test/a.test.js"]).screened();
  loop.append("tamper_flagged", {
    iteration: 1,
    flag: {
      id: "T1",
      kind: "skip-marker-added",
      file: "test/a.test.js",
      line: 5,
      detail: 'test.skip("adds")',
    },
  });
  loop.gatesPassed().endIteration();
  assert.match(
    nextBrief(loop),
    /- Tamper flag T1 skip-marker-added at test\/a\.test\.js:5: test\.skip\("adds"\) BLOCKING: loopwright fails every iteration/,
  );
});

test("the verifier's tamper rulings and their reasons are in the next brief after a rejection", () => {
  const loop = new FakeLoop().prepared().iteration().makerEnded().committed(["test/a.test.js"]).screened();
  loop.append("tamper_flagged", {
    iteration: 1,
    flag: { id: "T1", kind: "tamper-file", file: "test/a.test.js", detail: "test file changed" },
  });
  loop.gatesPassed().verifierEnded("ruled", {
    verdict: {
      overall: "fail",
      gates: [
        { id: "tests", passed: true, evidence: [{ file: "test/a.test.js" }] },
        { id: "lint", passed: true, evidence: [{ file: "test/a.test.js" }] },
      ],
      tamper: [{ id: "T1", legitimate: false, reason: "the expected value was changed to match the bug" }],
    },
  });
  loop.endIteration();
  assert.match(
    nextBrief(loop),
    /- Tamper flag T1 ruled NOT legitimate: the expected value was changed to match the bug/,
  );
});

test("a long output tail is capped, keeping its end, with a note of what was cut", () => {
  const tail = `FIRST LINE\n${"x".repeat(9000)}\nLAST LINE`;
  const loop = new FakeLoop().prepared().iteration().makerEnded().committed().screened();
  loop.gateFailed("tests", { tail }).gatePassed("lint").endIteration();
  const brief = nextBrief(loop);
  assert.match(brief, /LAST LINE\n```/);
  assert.doesNotMatch(brief, /FIRST LINE/);
  assert.match(brief, new RegExp(`\\[\\.\\.\\. ${tail.length - 3000} characters cut \\.\\.\\.\\]`));
  assert.ok(brief.length < 8000, `brief is ${brief.length} characters`);
});

test("a verifier rejection is quoted with its reasons", () => {
  const loop = new FakeLoop().prepared().iteration().makerEnded().committed().screened().gatesPassed();
  loop.verifierRuled("fail", { rejected: ["tests"], notes: "the new test only checks the happy path" });
  loop.endIteration();
  const brief = nextBrief(loop);
  assert.match(brief, /### The verifier did not approve\n- tests: tests is not met/);
  assert.match(brief, /Notes: the new test only checks the happy path/);
});

test("approaches already tried list each maker's account and flag repeats", () => {
  const loop = new FakeLoop(fakeSpec({ budget: { maxIterations: 0 } })).prepared();
  loop.attempt({ diff: "A", failing: ["tests"], account: "Rewrote the tokenizer\nwith a regex." });
  loop.attempt({ diff: "A", failing: ["tests"], account: "Tweaked the regex." });
  const brief = nextBrief(loop);
  assert.match(brief, /## Approaches already tried\n/);
  assert.match(brief, /- Iteration 1: Rewrote the tokenizer with a regex\.\n/);
  assert.match(
    brief,
    /- Iteration 2 \[REPEAT: the same change and failures as an earlier iteration\]: Tweaked/,
  );
});

test("the revised approach of a replan reaches the next brief, with its hypotheses", () => {
  const loop = new FakeLoop(fakeSpec({ budget: { maxIterations: 0 } })).prepared();
  loop.attempt({ diff: "A", failing: ["tests"] }).attempt({ diff: "A", failing: ["tests"] });
  assert.doesNotMatch(nextBrief(loop), /Revised approach/);
  loop.replanned("Write a recursive-descent parser.", ["the regex cannot match nested parentheses"]);
  const brief = nextBrief(loop);
  assert.match(brief, /## Revised approach\n[^\n]*\nWrite a recursive-descent parser\./);
  assert.match(brief, /Hypotheses to test:\n- the regex cannot match nested parentheses/);
});

test("steering changes are quoted with old and new values, only in the brief right after they apply", () => {
  const loop = new FakeLoop().prepared().attempt({ failing: ["tests"] });
  loop.steered({ goal: "The parser and printer tests pass.", budget: { maxIterations: 5 } });
  loop.steered({ removeGates: ["lint"] });
  assert.doesNotMatch(nextBrief(loop), /Steering/, "filed but not yet applied");
  loop.steeringApplied();
  const brief = nextBrief(loop);
  assert.match(brief, /## Steering since the last iteration\n/);
  assert.ok(
    brief.includes('- goal: was "The parser tests pass.", now "The parser and printer tests pass."'),
    brief,
  );
  assert.match(brief, /- budget\.maxIterations: was 3, now 5/);
  assert.match(
    brief,
    /- gates\.lint: was \{"id":"lint","kind":"lint-clean","run":"npx biome check".*\}, now null/,
  );
  assert.match(brief, /## Goal\nThe parser and printer tests pass\.\n/);
  assert.doesNotMatch(brief, /- lint \(lint-clean\)/);

  loop.attempt({ failing: ["tests"] });
  assert.doesNotMatch(nextBrief(loop), /Steering/);
});

test("the repository's LESSONS.md is included when it has one", () => {
  const loop = new FakeLoop().prepared();
  const lessons = "# Lessons\n- Run `npm run gen` after changing the grammar.\n";
  assert.match(
    nextBrief(loop, { lessons }),
    /## Lessons from this repository \(LESSONS\.md\)\n# Lessons\n- Run `npm run gen` after changing the grammar\.\n$/,
  );
  assert.doesNotMatch(nextBrief(loop, { lessons: "  \n" }), /LESSONS/);
});

test("a maker that ran out of time is told so in the next brief", () => {
  const loop = new FakeLoop().prepared().iteration().makerEnded("timeout").committed().screened();
  loop.gateFailed("tests").gatePassed("lint").endIteration();
  assert.match(nextBrief(loop), /The maker ran out of time: its work so far was committed and graded\./);
  const inTime = new FakeLoop().prepared().attempt({ failing: ["tests"] });
  assert.doesNotMatch(nextBrief(inTime), /ran out of time/);
});

test("scope violations are named with the rule they broke, and the scope is in the working rules", () => {
  const spec = fakeSpec({ scope: { allow: ["src/**", "test/**"], deny: [".env*"], protect: ["bench/**"] } });
  const loop = new FakeLoop(spec).prepared().iteration().makerEnded().committed([".env", "docs/a.md"]);
  loop.screened({
    violations: [
      { file: ".env", rule: "denied by .env*" },
      { file: "docs/a.md", rule: "not in allow (src/**, test/**)" },
    ],
  });
  loop.gatesPassed().endIteration();
  const brief = nextBrief(loop);
  assert.match(brief, /- Out of scope: \.env \(denied by \.env\*\)\. Revert this change\./);
  assert.match(brief, /- Out of scope: docs\/a\.md \(not in allow \(src\/\*\*, test\/\*\*\)\)\./);
  assert.match(brief, /- Change only files matching: src\/\*\*, test\/\*\*\./);
  assert.match(brief, /- Never change files matching: \.env\*\./);
  assert.match(brief, /- Protected \(changes are flagged to the verifier\): bench\/\*\*\./);
});
