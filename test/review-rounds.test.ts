/**
 * `review:` rounds through the real CLI, with scripted engines (real git, real processes): after each
 * maker turn that changed code, the reviewer reads that turn's patch; its findings are the maker's next
 * turn (committed like any turn); the rounds stop at `ok`, at the cap, or at a turn that changes
 * nothing, and then the gates run. Malformed answers get one corrective retry, then are an
 * infrastructure error; findings citing a file or line not in the patch are dropped and recorded.
 */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { eventsIn, loopSummary, type StreamedEvent } from "./support/loop-timeline.ts";

/** A scripted turn that prints `answer` as the reviewer's JSON (a JSON string is a YAML scalar). */
const says = (answer: unknown) =>
  `{ print: ${JSON.stringify(typeof answer === "string" ? answer : JSON.stringify(answer))} }`;
const ok = says({ verdict: "ok", findings: [] });
const removeNotes = says({
  verdict: "changes_requested",
  findings: [{ severity: "major", file: "notes.txt", line: 1, message: "remove the debugging note" }],
});

/** Iteration 1's first turn writes the answer and a stray note; the turn answering the review removes the note. */
function spec(name: string, review: string, extra = "") {
  return `name: ${name}
goal: answer.txt says 42, and nothing else is left behind.
repo: ./repo
maker:
  engine: scripted
  turns:
    - { say: "wrote the answer", write: { answer.txt: "42\\n", notes.txt: "debug: remove me\\n" } }
    - { say: "removed the note", delete: [notes.txt] }
    - { say: "touched the answer again", write: { answer.txt: "42\\n\\n" } }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
review:
${review}
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }
budget: { maxIterations: 3 }
${extra}`;
}

let sandbox: Sandbox;
before(async () => {
  sandbox = await createSandbox({ "answer.txt": "0\n" });
});
after(async () => {
  await sandbox?.cleanup();
});

async function run(name: string, text: string) {
  const path = await sandbox.spec(text, join(sandbox.root, `${name}.yaml`));
  const result = await sandbox.cli(["run", path, "--json"]);
  const events = eventsIn(result.stdout);
  return { result, events, output: result.stderr + result.stdout.slice(-4000) };
}

const ofType = (events: StreamedEvent[], type: string) => events.filter((event) => event.type === type);

describe("review rounds with scripted engines", () => {
  test("ok at once: one round on the first turn's patch, then the gates; verified", async () => {
    const { result, events, output } = await run(
      "ok-at-once",
      spec("ok-at-once", `  engine: scripted\n  checklist: "no stray files"\n  turns: [${ok}]`),
    );
    assert.equal(result.code, 0, output);
    assert.equal(ofType(events, "engines_resolved")[0].data.reviewer, "scripted", "the reviewer is named");
    const [started] = ofType(events, "review_started");
    assert.deepEqual(started.data.files, ["answer.txt", "notes.txt"]);
    assert.match(String(started.data.patch), /\+debug: remove me/, "the patch itself is on the timeline");
    assert.match(await readFile(String(started.data.patchPath), "utf8"), /\+42/);
    const ended = ofType(events, "review_ended");
    assert.deepEqual(
      ended.map((event) => [event.data.round, event.data.status, event.data.verdict]),
      [[1, "reviewed", "ok"]],
    );
    // The round comes between the commit and the gates.
    const order = events.map((event) => event.type);
    assert.ok(order.indexOf("commit_created") < order.indexOf("review_started"));
    assert.ok(order.indexOf("review_ended") < order.indexOf("change_screened"));
    assert.equal(ofType(events, "maker_started").length, 1);
    assert.equal(await sandbox.git("rev-list", "--count", "main..loop/ok-at-once"), "1");
  });

  test("changes_requested, then ok: the findings are the next turn's brief, committed in the same iteration", async () => {
    const { result, events, output } = await run(
      "fix-review",
      spec("fix-review", `  engine: scripted\n  rounds: 3\n  turns: [${removeNotes}, ${ok}]`),
    );
    assert.equal(result.code, 0, output);
    assert.deepEqual(
      ofType(events, "review_ended").map((event) => `${event.data.round}:${event.data.verdict}`),
      ["1:changes_requested", "2:ok"],
    );
    const rework = ofType(events, "maker_started")[1];
    assert.equal(rework.data.reviewRound, 1);
    assert.match(String(rework.data.brief), /answering review round 1 of at most 3/);
    assert.match(String(rework.data.brief), /1\. \[major\] notes\.txt:1: remove the debugging note/);
    assert.doesNotMatch(String(rework.data.brief), /Gate answer/, "no logs in the rework brief");
    // Round 2 read only the second turn's patch: the note's removal.
    const second = ofType(events, "review_started")[1];
    assert.deepEqual(second.data.files, ["notes.txt"]);
    assert.match(String(second.data.patch), /-debug: remove me/);
    assert.doesNotMatch(String(second.data.patch), /answer\.txt/);
    // Two commits in one iteration; the gates graded the last; one iteration, verified.
    assert.deepEqual((await sandbox.git("log", "--format=%s", "main..loop/fix-review")).split("\n"), [
      "loopwright: fix-review iteration 1, answering review round 1",
      "loopwright: fix-review iteration 1",
    ]);
    const graded = ofType(events, "gate_ended").find(
      (event) => (event.data.result as { phase: string }).phase === "grade",
    );
    assert.equal(
      (graded?.data.result as { sha: string } | undefined)?.sha,
      await sandbox.git("rev-parse", "loop/fix-review"),
    );
    assert.deepEqual(
      ofType(events, "iteration_ended").map((event) => event.data.outcome),
      ["verified"],
    );
    assert.equal(await sandbox.git("ls-tree", "--name-only", "loop/fix-review"), "answer.txt");

    // show, the report and show --json carry every round and finding.
    const show = await sandbox.cli(["show", "fix-review"]);
    assert.match(show.stdout, /review round 1 of [0-9a-f]{12} \(2 files\): changes_requested, 1 finding/);
    assert.match(show.stdout, /• \[major\] notes\.txt:1: remove the debugging note/);
    assert.match(show.stdout, /review round 2 of [0-9a-f]{12} \(1 file\): ok, 0 findings/);
    const report = await sandbox.cli(["report", "fix-review"]);
    assert.match(report.stdout, /## Review rounds/);
    assert.match(report.stdout, /Iteration 1, round 1 .*changes_requested/);
    assert.match(report.stdout, /review-1\.patch/);
    const summary = await loopSummary(sandbox, "fix-review");
    assert.deepEqual(
      summary.iterations[0].reviews.map((review: { verdict: string }) => review.verdict),
      ["changes_requested", "ok"],
    );
  });

  test("the cap: after `rounds` reviews the gates run, and the open findings reach the report", async () => {
    const { result, events, output } = await run(
      "capped",
      spec(
        "capped",
        `  engine: scripted\n  rounds: 2\n  turns: [${removeNotes}, ${says({ verdict: "changes_requested", findings: [{ severity: "nit", file: "notes.txt", message: "still here?" }] })}]`,
      ),
    );
    assert.equal(result.code, 0, output);
    assert.deepEqual(
      ofType(events, "review_ended").map((event) => `${event.data.round}:${event.data.verdict}`),
      ["1:changes_requested", "2:changes_requested"],
    );
    assert.equal(ofType(events, "maker_started").length, 2, "no third maker turn past the cap");
    assert.ok(ofType(events, "gate_ended").length > 0, "the gates ran after the last round");
    assert.equal(ofType(events, "loop_stopped").at(-1)?.data.reason, "verified");
    const show = await sandbox.cli(["show", "capped"]);
    assert.match(show.stdout, /review round 2 .*changes_requested, 1 finding/);
    assert.match(show.stdout, /• \[nit\] notes\.txt: still here\?/);
  });

  test("findings on a file or line not in the patch are dropped and recorded; with none left, the gates run", async () => {
    const outside = says({
      verdict: "changes_requested",
      findings: [
        { severity: "major", file: "answer.txt", line: 99, message: "line 99 does not exist" },
        { severity: "blocker", file: "src/elsewhere.ts", line: 1, message: "not in the patch" },
      ],
    });
    const { result, events, output } = await run(
      "dropped",
      spec("dropped", `  engine: scripted\n  turns: [${outside}]`),
    );
    assert.equal(result.code, 0, output);
    const [ended] = ofType(events, "review_ended");
    assert.equal(ended.data.verdict, "changes_requested");
    assert.deepEqual(ended.data.findings, []);
    assert.deepEqual(
      (ended.data.dropped as { file: string; reason: string }[]).map((finding) => finding.reason),
      ["line 99 of answer.txt is not in the patch", "src/elsewhere.ts is not in the patch"],
    );
    assert.equal(ofType(events, "maker_started").length, 1, "nothing for the maker to answer");
    const show = await sandbox.cli(["show", "dropped"]);
    assert.match(
      show.stdout,
      /✗ dropped \[major\] answer\.txt:99: line 99 does not exist \(line 99 of answer\.txt is not in the patch\)/,
    );
  });

  test("a finding in the patch is kept beside a dropped one, and only the kept one reaches the maker", async () => {
    const mixed = says({
      verdict: "changes_requested",
      findings: [
        { severity: "major", file: "notes.txt", line: 1, message: "remove the debugging note" },
        { severity: "minor", file: "notes.txt", line: 7, message: "no line 7 here" },
      ],
    });
    const { result, events, output } = await run(
      "mixed",
      spec("mixed", `  engine: scripted\n  turns: [${mixed}, ${ok}]`),
    );
    assert.equal(result.code, 0, output);
    const [first] = ofType(events, "review_ended");
    assert.equal((first.data.findings as unknown[]).length, 1);
    assert.equal((first.data.dropped as unknown[]).length, 1);
    const rework = ofType(events, "maker_started")[1];
    assert.match(String(rework.data.brief), /remove the debugging note/);
    assert.doesNotMatch(String(rework.data.brief), /no line 7 here/);
  });

  test("a malformed answer gets one corrective retry that says what was wrong", async () => {
    // The reviewer answers badly until its prompt says why; then it answers, naming what its folder holds.
    await writeFile(
      join(sandbox.root, "reviewer.sh"),
      `#!/bin/sh
if grep -q "previous answer was rejected" "$LOOPWRIGHT_BRIEF_FILE"; then
  printf '{"verdict":"ok","findings":[{"severity":"nit","file":"notes.txt","message":"folder: %s"}]}' "$(ls -A | tr '\\n' ' ')"
else
  echo '{"verdict":"maybe"}'
fi
`,
      { mode: 0o755 },
    );
    const { result, events, output } = await run(
      "malformed-once",
      spec("malformed-once", "  engine: command\n  run: ./reviewer.sh"),
    );
    assert.equal(result.code, 0, output);
    const [rejected] = ofType(events, "review_rejected");
    assert.deepEqual(rejected.data.problems, [
      'verdict: Invalid option: expected one of "ok"|"changes_requested"',
    ]);
    const [ended] = ofType(events, "review_ended");
    assert.equal(ended.data.status, "reviewed");
    assert.equal(ended.data.verdict, "ok");
    const [finding] = ended.data.findings as { message: string }[];
    assert.equal(
      finding.message,
      "folder: patch.diff",
      "the reviewer's folder holds the patch and nothing else",
    );
    assert.equal(ofType(events, "loop_stopped").at(-1)?.data.reason, "verified");
  });

  test("malformed twice: an infrastructure error, counted by the circuit breaker", async () => {
    const { result, events, output } = await run(
      "malformed-twice",
      spec("malformed-twice", `  engine: scripted\n  turns: [${says("Looks good to me!")}]`),
    );
    assert.equal(result.code === 0, false, output);
    assert.equal(ofType(events, "loop_stopped").at(-1)?.data.reason, "circuit_broken");
    const ended = ofType(events, "review_ended");
    assert.equal(ended.length, 3);
    for (const event of ended) {
      assert.equal(event.data.status, "invalid");
      assert.match(
        String(event.data.error),
        /malformed review after a corrective retry: .*not one JSON value/,
      );
    }
    assert.equal(ofType(events, "review_rejected").length, 3, "one corrective retry per round");
    assert.deepEqual(
      ofType(events, "iteration_ended").map((event) => event.data.outcome),
      ["infra_error", "infra_error", "infra_error"],
    );
    assert.equal(ofType(events, "gate_started").filter((event) => event.data.phase !== "baseline").length, 0);
  });
  test("the review round spends from the iteration's cost cap: with nothing left it does not start", async () => {
    const text = spec("no-money", `  engine: scripted\n  turns: [${ok}]`)
      .replace('- { say: "wrote the answer", write:', '- { costUsd: 1, say: "wrote the answer", write:')
      .replace("budget: { maxIterations: 3 }", "budget: { maxIterations: 3, maxCostUsdPerIteration: 1 }");
    const { result, events, output } = await run("no-money", text);
    assert.notEqual(result.code, 0, output);
    const [ended] = ofType(events, "review_ended");
    assert.equal(ended.data.status, "over_budget");
    assert.match(String(ended.data.error), /cost cap was spent \(\$1\.00\) before the reviewer could start/);
    assert.equal(ofType(events, "iteration_ended")[0].data.outcome, "over_budget");
    assert.equal(ofType(events, "loop_stopped").at(-1)?.data.reason, "budget_exhausted");
  });
  test("findings left open at the cap reach the next iteration's brief when the gates fail", async () => {
    const text = spec("open-findings", `  engine: scripted\n  rounds: 1\n  turns: [${removeNotes}]`)
      .replace('answer.txt: "42\\n", notes.txt', 'answer.txt: "41\\n", notes.txt')
      .replace("budget: { maxIterations: 3 }", "budget: { maxIterations: 2 }");
    const { result, events, output } = await run("open-findings", text);
    assert.notEqual(result.code, 0, output);
    assert.equal(ofType(events, "iteration_ended")[0].data.outcome, "failed");
    const brief = await sandbox.cli(["brief", "open-findings", "--iteration", "2"]);
    assert.match(brief.stdout, /### Review rounds: 1 \(changes_requested\)/);
    assert.match(
      brief.stdout,
      /not answered before the gates ran:\n- \[major\] notes\.txt:1: remove the debugging note/,
    );
  });
});
