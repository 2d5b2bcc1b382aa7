/**
 * The parts of `finish.ci` that need no forge: the spec field (defaults through the duration parser,
 * `file:line` problems for bad values, only with a pull request), the standing a set of checks adds up
 * to (no check is pending, never green), CI log clean-up before the digest, `decide` over CI rounds,
 * and `doctor --spec` warning that the workflow's own GITHUB_TOKEN starts no check for a CI watch.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { promisify } from "node:util";
import type { LoopEvent } from "../src/core/events.ts";
import { parseSpecText } from "../src/core/spec-file.ts";
import { SpecError } from "../src/errors.ts";
import { standingOf } from "../src/forge/ci-checks.ts";
import { plainCiLog } from "../src/forge/ci-log-text.ts";
import { digestText } from "../src/gates/digest/index.ts";
import { describeCiEvent } from "../src/loop/ci-wording.ts";
import { decide } from "../src/loop/decide.ts";
import { exitCodeOf } from "../src/loop/exit-code.ts";
import { apply, type LoopState, replay } from "../src/loop/state.ts";
import { startFakeGithub } from "./support/fake-github.ts";
import { binary, createSandbox } from "./support/loop-sandbox.ts";

const folder = mkdtempSync(join(tmpdir(), "ci-spec-"));

const specText = (finish: string) => `name: ci
goal: something
maker: { engine: scripted, turns: [{ say: hi }] }
finish:
${finish}
`;

function problemsOf(text: string): string[] {
  try {
    parseSpecText(text, "loop.yaml", folder);
  } catch (error) {
    assert.ok(error instanceof SpecError, String(error));
    return error.problems;
  }
  assert.fail("the spec was accepted");
}

describe("the finish.ci field", () => {
  test("defaults: wait 30m, maxRepairs 3, poll 15s; durations through the duration parser", () => {
    const { spec } = parseSpecText(specText("  action: pull-request\n  ci: {}"), "loop.yaml", folder);
    assert.deepEqual(spec.finish.ci, { wait: 1_800_000, maxRepairs: 3, poll: 15_000 });
    const given = parseSpecText(
      specText("  action: pull-request\n  ci: { wait: 45m, maxRepairs: 1, poll: 500ms }"),
      "loop.yaml",
      folder,
    );
    assert.deepEqual(given.spec.finish.ci, { wait: 2_700_000, maxRepairs: 1, poll: 500 });
    assert.equal(
      parseSpecText(specText("  action: pull-request"), "loop.yaml", folder).spec.finish.ci,
      undefined,
    );
  });

  test("bad values are problems with the file and line", () => {
    const problems = problemsOf(
      specText(
        "  action: pull-request\n  ci:\n    wait: soon\n    maxRepairs: -1\n    poll: 0\n    retries: 2",
      ),
    );
    const text = problems.join("\n");
    assert.match(text, /loop\.yaml:7: finish\.ci\.wait: not a duration: "soon"/);
    assert.match(text, /loop\.yaml:8: finish\.ci\.maxRepairs: .*(>=|at least|too small)/i);
    assert.match(text, /loop\.yaml:\d+: finish\.ci(\.retries)?: .*retries/);
    const poll = problemsOf(specText("  action: pull-request\n  ci:\n    poll: 0"));
    assert.match(poll.join("\n"), /loop\.yaml:7: finish\.ci\.poll: must be more than 0/);
  });

  test("ci only goes with a pull request", () => {
    const problems = problemsOf(specText("  action: branch\n  ci: { wait: 10m }"));
    assert.match(problems.join("\n"), /loop\.yaml:\d+: finish\.ci: only for action pull-request/);
  });
});

describe("the standing of checks", () => {
  const check = (state: "pending" | "passed" | "failed" | "skipped") => ({
    name: state,
    kind: "job" as const,
    state,
  });
  test("no check at all is pending, never green; one failure fails; all done and one passed passes", () => {
    assert.equal(standingOf([]), "pending");
    assert.equal(standingOf([check("skipped")]), "pending");
    assert.equal(standingOf([check("passed"), check("pending")]), "pending");
    assert.equal(standingOf([check("failed"), check("pending")]), "failed");
    assert.equal(standingOf([check("passed"), check("skipped")]), "passed");
  });

  test("a GitHub Actions log and a GitLab trace digest like a local gate's log once cleaned", () => {
    const pytest =
      "=================================== FAILURES ===================================\n" +
      "____________________________ test_answer ____________________________\n\n" +
      "    def test_answer():\n>       assert 41 == 42\nE       assert 41 == 42\n\ntests/test_a.py:3: AssertionError\n" +
      "=========================== short test summary info ============================\n" +
      "FAILED tests/test_a.py::test_answer - assert 41 == 42\n" +
      "============================== 1 failed in 0.01s ===============================";
    const stamped = pytest
      .split("\n")
      .map((line) => `2026-12-01T10:00:01.1234567Z ${line}`)
      .join("\n");
    assert.deepEqual(
      digestText(plainCiLog(stamped)).failures.map((failure) => failure.name),
      ["tests/test_a.py::test_answer"],
    );
    const esc = String.fromCharCode(27);
    const trace = `${esc}[0Ksection_start:1764583201:step_script\r${esc}[0K${pytest}\nsection_end:1764583205:step_script\r${esc}[0K\n`;
    assert.doesNotMatch(plainCiLog(trace), /section_(start|end)/);
    assert.deepEqual(
      digestText(plainCiLog(trace)).failures.map((failure) => failure.name),
      ["tests/test_a.py::test_answer"],
    );
  });
});

describe("decide over CI rounds", () => {
  const spec = parseSpecText(
    specText(
      "  action: pull-request\n  forge: github\n  api: https://api.github.com\n  repository: a/b\n  ci: { wait: 10m, maxRepairs: 1 }",
    ),
    "loop.yaml",
    folder,
  ).spec;
  let seq = 0;
  const event = (type: string, data: unknown): LoopEvent =>
    ({ type, seq: ++seq, at: "2026-12-01T10:00:00.000Z", data }) as LoopEvent;
  /** A loop whose iteration `number` verified `sha`, pushed it and opened its pull request. */
  const verified = (state: LoopState, number: number, sha: string) =>
    [
      event("iteration_started", { iteration: number, startSha: "base", brief: "", briefPath: "" }),
      event("iteration_ended", {
        iteration: number,
        outcome: "verified",
        failingGates: [],
        repeat: false,
        summary: "ok",
      }),
      event("loop_finished", {
        action: "pull-request",
        branch: "loop/ci",
        sha,
        pushed: true,
        remote: "origin",
      }),
      event("pull_request_recorded", { forge: "github", sha, number: 1, url: "u", created: number === 1 }),
    ].reduce(apply, state);
  const prepared = replay(spec, [
    event("run_started", { runId: "r", pid: 1, host: "h", command: "run" }),
    event("loop_prepared", { makerWorktree: "m", gateWorktree: "g", baseSha: "base" }),
  ]);
  const failedChecks = [{ name: "test", kind: "check-run", state: "failed" }];

  test("watch → failed → repair iteration → watch the repair → passed → verified", () => {
    let state = verified(prepared, 1, "a".repeat(40));
    assert.deepEqual(decide(state), { kind: "watch_ci", sha: "a".repeat(40), round: 0 });
    state = apply(state, event("ci_watch_started", { sha: "a".repeat(40), round: 0 }));
    state = apply(
      state,
      event("ci_checks_recorded", { sha: "a".repeat(40), standing: "pending", checks: [] }),
    );
    assert.equal(decide(state).kind, "watch_ci", "no check yet is pending");
    state = apply(
      state,
      event("ci_checks_recorded", {
        sha: "a".repeat(40),
        standing: "failed",
        checks: failedChecks,
        failures: [],
      }),
    );
    assert.deepEqual(decide(state), { kind: "start_ci_repair", sha: "a".repeat(40) });
    state = apply(state, event("ci_repair_started", { sha: "a".repeat(40), round: 1, failures: [] }));
    assert.deepEqual(
      decide(state),
      { kind: "start_iteration", iteration: 2 },
      "the iteration cap does not apply",
    );
    state = verified(state, 2, "b".repeat(40));
    assert.deepEqual(decide(state), { kind: "watch_ci", sha: "b".repeat(40), round: 1 });
    state = apply(state, event("ci_watch_started", { sha: "b".repeat(40), round: 1 }));
    state = apply(
      state,
      event("ci_checks_recorded", {
        sha: "b".repeat(40),
        standing: "passed",
        checks: [{ name: "test", kind: "check-run", state: "passed" }],
      }),
    );
    const stop = decide(state);
    assert.equal(stop.kind, "stop");
    assert.equal(stop.kind === "stop" && stop.reason, "verified");
  });

  test("a failure past maxRepairs, and a round that timed out, stop ci_failed with exit code 8", () => {
    let state = verified(prepared, 1, "c".repeat(40));
    state = apply(state, event("ci_watch_started", { sha: "c".repeat(40), round: 0 }));
    const timedOut = apply(
      state,
      event("ci_checks_recorded", { sha: "c".repeat(40), standing: "timed_out", checks: [] }),
    );
    const stop = decide(timedOut);
    assert.ok(stop.kind === "stop" && stop.reason === "ci_failed", JSON.stringify(stop));
    assert.match(stop.message, /did not finish within finish\.ci\.wait \(600s\): no check reported at all/);
    const refused = apply(
      state,
      event("ci_checks_recorded", {
        sha: "c".repeat(40),
        standing: "timed_out",
        checks: [],
        error: "GitHub refused the token from GITHUB_TOKEN (401 Bad credentials)",
      }),
    );
    const refusedStop = decide(refused);
    assert.match(
      refusedStop.kind === "stop" ? refusedStop.message : "",
      /no check reported at all .*; the forge's last answer: GitHub refused the token/,
    );
    const stopped = apply(timedOut, event("loop_stopped", { reason: "ci_failed", message: stop.message }));
    assert.equal(exitCodeOf(stopped), 8);
    // resume after a round that timed out: finish again (push, pull request), then a fresh watch.
    let resumed = apply(stopped, event("loop_resumed", {}));
    resumed = apply(
      resumed,
      event("loop_prepared", { makerWorktree: "m", gateWorktree: "g", baseSha: "base" }),
    );
    assert.equal(decide(resumed).kind, "finish");
    resumed = [
      event("loop_finished", {
        action: "pull-request",
        branch: "loop/ci",
        sha: "c".repeat(40),
        pushed: true,
      }),
      event("pull_request_recorded", {
        forge: "github",
        sha: "c".repeat(40),
        number: 1,
        url: "u",
        created: false,
      }),
    ].reduce(apply, resumed);
    assert.deepEqual(decide(resumed), { kind: "watch_ci", sha: "c".repeat(40), round: 0 });
    state = apply(state, event("ci_repair_started", { sha: "c".repeat(40), round: 1, failures: [] }));
    state = verified(state, 2, "d".repeat(40));
    state = apply(state, event("ci_watch_started", { sha: "d".repeat(40), round: 1 }));
    state = apply(
      state,
      event("ci_checks_recorded", {
        sha: "d".repeat(40),
        standing: "failed",
        checks: failedChecks,
        failures: [],
      }),
    );
    const final = decide(state);
    assert.ok(final.kind === "stop" && final.reason === "ci_failed", JSON.stringify(final));
    assert.match(final.message, /failed on d{12} after 1 repair round: test/);
  });
});

test("doctor --spec warns that the workflow's own GITHUB_TOKEN starts no check for finish.ci", async () => {
  const token = "ghp_doctorci0123456789";
  const github = await startFakeGithub({ token, repository: "acme/widget" });
  const sandbox = await createSandbox({ "a.txt": "a\n" });
  try {
    await sandbox.git("remote", "add", "origin", "https://github.com/acme/widget.git");
    const specPath = join(sandbox.root, "loop.yaml");
    writeFileSync(specPath, specText("  action: pull-request\n  ci: { wait: 20m }"));
    const { stdout } = await promisify(execFile)(process.execPath, [binary, "doctor", "--spec", specPath], {
      cwd: sandbox.repo,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        GITHUB_API_URL: github.url,
        GITHUB_TOKEN: token,
        GITHUB_ACTIONS: "true",
      },
    });
    assert.match(
      stdout,
      /warning: finish\.ci is set: with the workflow's own GITHUB_TOKEN no check will start/,
    );
  } finally {
    await sandbox.cleanup();
    await github.close();
  }
});

test("CI events in one line each, for the terminal and the dashboard's timeline", () => {
  const line = describeCiEvent({
    type: "ci_checks_recorded",
    seq: 9,
    at: "2026-12-01T10:00:00.000Z",
    data: {
      sha: "f".repeat(40),
      standing: "failed",
      checks: [
        { name: "test", kind: "check-run", state: "failed" },
        { name: "lint", kind: "check-run", state: "passed" },
      ],
      failures: [
        { check: "test", logSource: "job log", failures: ["tests/test_a.py::test_answer"], digest: "" },
      ],
      waits: ["GitHub secondary rate limit on GET /x: waiting 1s"],
    },
  });
  assert.equal(
    line,
    "CI failed on ffffffffff: 1 passed, 1 failed; failing: tests/test_a.py::test_answer; GitHub secondary rate limit on GET /x: waiting 1s",
  );
  assert.equal(
    describeCiEvent({
      type: "ci_watch_started",
      seq: 8,
      at: "2026-12-01T10:00:00.000Z",
      data: { sha: "f".repeat(40), round: 1, deadline: "2026-12-01T10:30:00.000Z" },
    }),
    "CI: watching the forge's checks on ffffffffff (after repair 1) until 10:30:00 UTC",
  );
});
