/**
 * Verifiers that misbehave, each a real loop through the real CLI on the adversarial project, with a
 * maker that fixes the bug for real: a verifier that prints invalid JSON, approves without evidence,
 * cites a missing file, quotes output that never appeared or approves a red gate is told why and
 * retried once, then the iteration is an infrastructure error; a verdict corrected on the retry counts.
 *
 * One sandbox for the file: every loop has its own name, branch, worktrees and probe directory.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createAdversarialProject, type LoopRun } from "./support/adversarial-project.ts";
import { eventsOf } from "./support/loop-events.ts";
import type { Sandbox } from "./support/loop-sandbox.ts";
import { type Attempt, runPlannedVerifier } from "./support/planned-verifier.ts";

let sandbox: Sandbox;
before(async () => {
  sandbox = await createAdversarialProject();
});
after(() => sandbox.cleanup());

/**
 * Each iteration's verdict was wrong twice: one `verdict_rejected` with `problem`, a retry whose prompt
 * lists it (the first prompt does not), then an invalid verdict ending the iteration as an
 * infrastructure error.
 */
async function assertRejectedTwice(
  run: LoopRun,
  prompt: (iteration: number, attempt: Attempt) => Promise<string>,
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
    sandbox,
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
    sandbox,
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

test("a verifier whose overall disagrees with its rulings on a non-required gate: the outcome is derived and the disagreement recorded, never an infrastructure error", async () => {
  const { run } = await runPlannedVerifier(
    sandbox,
    "verifier-disagrees",
    "1:strict-overall,strict-overall 2:correct",
  );
  assert.equal(eventsOf(run, "verdict_rejected").length, 0, "the verdict is admissible");
  const [first] = eventsOf(run, "verifier_ended");
  assert.deepEqual(
    [first.status, first.disagreement],
    ["ruled", "its overall said fail, though every required gate and flag ruling allows"],
  );
  const [one] = run.report.iterations;
  assert.deepEqual(
    [one.outcome, one.summary],
    [
      "failed",
      "the verifier did not approve (its overall said fail, though every required gate and flag ruling allows)",
    ],
  );
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.report.stopReason, "verified");
  assert.deepEqual(
    run.report.iterations.map((iteration) => iteration.outcome),
    ["failed", "verified"],
  );
});
