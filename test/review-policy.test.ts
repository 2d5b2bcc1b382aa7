/**
 * The pure parts of review rounds: the answer's schema, findings checked against the patch, the spec
 * field (a reviewer on the maker's own engine and model is refused), and the decisions between the
 * commit and the gates, on in-memory timelines.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import type { ReviewFinding } from "../src/core/events.ts";
import { parseSpecText } from "../src/core/spec-file.ts";
import { SpecError } from "../src/errors.ts";
import { findingsInPatch, parseReviewAnswer } from "../src/verify/review/review-answer.ts";
import { parseUnifiedDiff } from "../src/verify/tamper/unified-diff.ts";
import { FakeLoop, fakeSpec } from "./support/fake-loop.ts";

const patch = parseUnifiedDiff(`diff --git a/src/a.ts b/src/a.ts
index 1111111..2222222 100644
--- a/src/a.ts
+++ b/src/a.ts
@@ -10,3 +10,4 @@ export function a() {
 const one = 1;
-const two = 3;
+const two = 2;
+const three = 3;
 return one;
diff --git a/old.txt b/new.txt
similarity 90%
rename from old.txt
rename to new.txt
`);

const finding = (file: string, line?: number): ReviewFinding => ({
  severity: "major",
  file,
  ...(line === undefined ? {} : { line }),
  message: "m",
});

describe("the reviewer's answer", () => {
  test("ok and changes_requested with findings are valid; findings default to none", () => {
    assert.deepEqual(parseReviewAnswer('{"verdict":"ok"}'), {
      valid: true,
      answer: { verdict: "ok", findings: [] },
    });
    const fenced = parseReviewAnswer(
      'Here it is:\n```json\n{"verdict":"changes_requested","findings":[{"severity":"nit","file":"a","line":3,"message":" x "}]}\n```',
    );
    assert.deepEqual(fenced, {
      valid: true,
      answer: {
        verdict: "changes_requested",
        findings: [{ severity: "nit", file: "a", line: 3, message: "x" }],
      },
    });
  });

  test("malformed: prose, an unknown verdict or severity, extra keys, changes requested without a finding", () => {
    const problems = (output: string) => {
      const check = parseReviewAnswer(output);
      assert.equal(check.valid, false, output);
      return check.valid ? [] : check.problems;
    };
    assert.match(problems("")[0], /printed nothing/);
    assert.match(problems("LGTM")[0], /not one JSON value: "LGTM"/);
    assert.match(problems('{"verdict":"fine"}')[0], /^verdict: /);
    assert.match(
      problems(
        '{"verdict":"changes_requested","findings":[{"severity":"huge","file":"a","message":"m"}]}',
      )[0],
      /^findings\.0\.severity: /,
    );
    assert.match(problems('{"verdict":"ok","score":3}')[0], /score/);
    assert.deepEqual(problems('{"verdict":"changes_requested","findings":[]}'), [
      "findings: changes_requested needs at least one finding",
    ]);
    assert.match(
      problems(
        '{"verdict":"changes_requested","findings":[{"severity":"major","file":"a","line":0,"message":"m"}]}',
      )[0],
      /findings\.0\.line/,
    );
  });
});

describe("findings against the patch", () => {
  test("a changed file, with a line of its hunks (new side; old side for removed lines), or without a line, is kept", () => {
    const { kept, dropped } = findingsInPatch(
      [
        finding("src/a.ts", 10),
        finding("src/a.ts", 12),
        finding("./src/a.ts", 11),
        finding("b/src/a.ts"),
        finding("old.txt"),
      ],
      patch,
    );
    assert.deepEqual(dropped, []);
    assert.deepEqual(
      kept.map((entry) => `${entry.file}:${entry.line ?? ""}`),
      ["src/a.ts:10", "src/a.ts:12", "src/a.ts:11", "src/a.ts:", "new.txt:"],
    );
  });

  test("a file outside the patch, or a line outside its hunks, is dropped with the reason", () => {
    const { kept, dropped } = findingsInPatch(
      [finding("src/b.ts", 1), finding("src/a.ts", 40), finding("src/a.ts", 9)],
      patch,
    );
    assert.deepEqual(kept, []);
    assert.deepEqual(
      dropped.map((entry) => entry.reason),
      [
        "src/b.ts is not in the patch",
        "line 40 of src/a.ts is not in the patch",
        "line 9 of src/a.ts is not in the patch",
      ],
    );
  });
});

describe("the review field of a spec", () => {
  const folder = mkdtempSync(join(tmpdir(), "loopwright-review-spec-"));
  after(() => rmSync(folder, { recursive: true, force: true }));
  const specText = (maker: string, review: string) => `name: reviewed
goal: The tests pass.
maker: ${maker}
review: ${review}
gates:
  - { id: tests, kind: tests-pass, run: "node --test" }
`;
  const problemsOf = (text: string): string[] => {
    try {
      parseSpecText(text, "loop.yaml", folder);
    } catch (error) {
      assert.ok(error instanceof SpecError, String(error));
      return error.problems;
    }
    return [];
  };

  test("defaults: 3 rounds, an empty checklist; another engine or another model is accepted", () => {
    const { spec } = parseSpecText(
      specText("{ engine: codex }", "{ engine: claude-code }"),
      "loop.yaml",
      folder,
    );
    assert.deepEqual(spec.review, { engine: "claude-code", rounds: 3, checklist: "" });
    assert.deepEqual(
      problemsOf(specText("{ engine: codex, model: gpt-5.5 }", "{ engine: codex, model: gpt-5.4 }")),
      [],
    );
    assert.deepEqual(
      problemsOf(specText("{ engine: scripted, turns: [{}] }", "{ engine: scripted, turns: [{}] }")),
      [],
    );
  });

  test("the maker's own engine and model is refused, at its line, with what to do", () => {
    assert.deepEqual(problemsOf(specText("{ engine: codex }", "{ engine: codex, rounds: 2 }")), [
      "loop.yaml:4: review.engine: the reviewer is the maker's own engine and model (codex with its default model); name another engine, or another model with review.model",
    ]);
    assert.match(
      problemsOf(specText("{ engine: claude-code, model: opus }", "{ engine: claude-code, model: opus }"))[0],
      /loop\.yaml:4: review\.engine: .*claude-code with model opus/,
    );
    assert.match(
      problemsOf(specText("{ engine: command, run: ./agent.sh }", "{ engine: command, run: ./agent.sh }"))[0],
      /maker's own command/,
    );
  });

  test("auto, zero rounds, unknown fields and a command without run are refused", () => {
    assert.match(
      problemsOf(specText("{ engine: codex }", "{ engine: auto }"))[0],
      /loop\.yaml:4: review\.engine: /,
    );
    assert.match(
      problemsOf(specText("{ engine: codex }", "{ engine: claude-code, rounds: 0 }"))[0],
      /review\.rounds/,
    );
    assert.match(
      problemsOf(specText("{ engine: codex }", "{ engine: claude-code, round: 2 }"))[0],
      /review\.round/,
    );
    assert.match(
      problemsOf(specText("{ engine: codex }", "{ engine: command }"))[0],
      /review\.run: required/,
    );
  });
});

describe("decisions between the commit and the gates", () => {
  const reviewed = () => new FakeLoop(fakeSpec({ review: { engine: "scripted", turns: [{}], rounds: 2 } }));
  const started = (loop: FakeLoop, round: number, sha: string, fromSha = "s".repeat(40)) =>
    loop.append("review_started", {
      iteration: 1,
      round,
      sha,
      fromSha,
      files: ["a"],
      patch: "",
      patchPath: "/p",
    });
  const ended = (
    loop: FakeLoop,
    round: number,
    verdict: "ok" | "changes_requested",
    findings = [finding("a")],
  ) =>
    loop.append("review_ended", {
      iteration: 1,
      round,
      status: "reviewed",
      verdict,
      findings: verdict === "ok" ? [] : findings,
      dropped: [],
      durationMs: 1,
    });
  const begin = (loop: FakeLoop) =>
    loop
      .prepared()
      .append("iteration_started", { iteration: 1, startSha: "s".repeat(40), brief: "b", briefPath: "/b" })
      .append("maker_started", { iteration: 1, attempt: 1, turnNumber: 1 })
      .append("maker_ended", { iteration: 1, status: "completed", account: "", durationMs: 1 });

  test("a turn that changed nothing is not reviewed; one that did is", () => {
    const unchanged = begin(reviewed()).append("commit_created", {
      iteration: 1,
      sha: "s".repeat(40),
      committed: false,
      files: [],
    });
    assert.equal(unchanged.decide().kind, "screen");
    const changed = begin(reviewed()).append("commit_created", {
      iteration: 1,
      sha: "c1",
      committed: true,
      files: ["a"],
    });
    assert.deepEqual(changed.decide(), { kind: "run_review", iteration: 1, round: 1 });
  });

  test("changes requested: the maker answers from the reviewed commit; ok or the cap: the screen and gates", () => {
    const loop = begin(reviewed()).append("commit_created", {
      iteration: 1,
      sha: "c1",
      committed: true,
      files: ["a"],
    });
    started(loop, 1, "c1");
    assert.deepEqual(
      loop.decide(),
      { kind: "run_review", iteration: 1, round: 1 },
      "a running round is re-run",
    );
    ended(loop, 1, "changes_requested");
    assert.deepEqual(loop.decide(), { kind: "run_maker", iteration: 1, resume: false, reviewRound: 1 });
    loop.append("maker_started", {
      iteration: 1,
      attempt: 2,
      turnNumber: 2,
      reviewRound: 1,
      brief: "f",
      briefPath: "/f",
    });
    assert.equal(loop.state().iterations[0].commit, undefined, "the answering turn makes its own commit");
    loop.append("maker_ended", { iteration: 1, status: "interrupted", account: "", durationMs: 0 });
    assert.deepEqual(loop.decide(), { kind: "run_maker", iteration: 1, resume: true, reviewRound: 1 });
    loop.append("maker_started", { iteration: 1, attempt: 3, turnNumber: 2, reviewRound: 1 });
    loop.append("maker_ended", { iteration: 1, status: "completed", account: "", durationMs: 1 });
    loop.append("commit_created", { iteration: 1, sha: "c2", committed: true, files: ["a"] });
    assert.deepEqual(loop.decide(), { kind: "run_review", iteration: 1, round: 2 });
    started(loop, 2, "c2", "c1");
    ended(loop, 2, "changes_requested");
    assert.equal(loop.decide().kind, "screen", "the cap of 2 rounds is reached");
  });

  test("an answering turn that changes nothing ends the rounds; a failed round ends the iteration", () => {
    const loop = begin(reviewed()).append("commit_created", {
      iteration: 1,
      sha: "c1",
      committed: true,
      files: ["a"],
    });
    started(loop, 1, "c1");
    ended(loop, 1, "changes_requested");
    loop.append("maker_started", { iteration: 1, attempt: 2, turnNumber: 2, reviewRound: 1 });
    loop.append("maker_ended", { iteration: 1, status: "completed", account: "", durationMs: 1 });
    loop.append("commit_created", { iteration: 1, sha: "c1", committed: false, files: ["a"] });
    assert.equal(loop.decide().kind, "screen");

    const invalid = begin(reviewed()).append("commit_created", {
      iteration: 1,
      sha: "c1",
      committed: true,
      files: ["a"],
    });
    started(invalid, 1, "c1");
    invalid.append("review_ended", {
      iteration: 1,
      round: 1,
      status: "invalid",
      findings: [],
      dropped: [],
      error: "malformed review after a corrective retry: x",
      durationMs: 1,
    });
    const action = invalid.decide();
    assert.equal(action.kind, "end_iteration");
    assert.equal(action.kind === "end_iteration" && action.outcome, "infra_error");
  });
});
