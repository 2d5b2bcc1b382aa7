/**
 * The decisions of `/loopwright` review rounds, on replayed timelines (pure): a request reopens a
 * verified loop for one iteration; a round that does not verify is answered `failed` and leaves the
 * branch on the pull request's commit; past `finish.comments.maxRounds` a request is only answered;
 * ignored comments and a comment recorded twice change nothing; the brief quotes the request.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { EventPayloads } from "../src/core/events.ts";
import { specSchema } from "../src/core/spec.ts";
import { buildBrief } from "../src/loop/brief.ts";
import { buildVerifierPrompt } from "../src/verify/verifier-prompt.ts";
import { FakeLoop, fakeSpec } from "./support/fake-loop.ts";

const spec = () =>
  fakeSpec({
    finish: {
      action: "pull-request",
      forge: "github",
      api: "https://api.github.com",
      repository: "acme/widget",
      comments: { maxRounds: 1 },
    },
  });

/** A loop verified at iteration 1 whose pull request #5 shows its commit. */
function verifiedWithPull(): { loop: FakeLoop; sha: string } {
  const loop = new FakeLoop(spec());
  loop.prepared().attempt();
  const sha = loop.state().iterations[0].commit?.sha ?? "";
  loop.append("loop_finished", {
    action: "pull-request",
    branch: loop.spec.branch,
    sha,
    pushed: true,
    remote: "origin",
  });
  assert.deepEqual(loop.decide(), { kind: "open_pull_request" });
  loop.append("pull_request_recorded", {
    forge: "github",
    sha,
    number: 5,
    url: "https://github.com/acme/widget/pull/5",
    created: true,
  });
  const stop = loop.decide();
  assert.equal(stop.kind, "stop");
  loop.append("loop_stopped", { reason: "verified", message: "verified at iteration 1" });
  return { loop, sha };
}

const request = (id: string, body: string): EventPayloads["review_comment_received"] => ({
  id,
  pullRequest: 5,
  author: "alice",
  kind: "diff",
  body,
  path: "src/parse.ts",
  line: 12,
  diffHunk: "@@ -10,3 +10,3 @@\n-old\n+new",
  code: "12> const value = parse(input);",
});

test("ignored comments leave a verified loop stopped; a request reopens it for one iteration quoting it", () => {
  const { loop } = verifiedWithPull();
  loop.append("review_comment_received", {
    id: "issue:1",
    pullRequest: 5,
    author: "bob",
    kind: "conversation",
    ignored: "not a /loopwright request",
  });
  assert.deepEqual(loop.decide(), { kind: "idle", status: "stopped" });
  loop.append("review_comment_received", request("review:2", "rename value to parsed"));
  assert.equal(loop.state().status, "running");
  assert.deepEqual(loop.decide(), { kind: "prepare" });
  loop.prepared();
  assert.deepEqual(loop.decide(), { kind: "start_iteration", iteration: 2 });
  const brief = buildBrief(loop.state(), 2);
  assert.match(brief, /## Review request on the pull request/);
  assert.match(brief, /> rename value to parsed/);
  assert.match(brief, /src\/parse\.ts:12/);
  assert.match(brief, /12> const value = parse\(input\);/);
  assert.match(brief, /@@ -10,3 \+10,3 @@/);
  // The same comment recorded again (two checks raced) is one request.
  loop.append("review_comment_received", request("review:2", "rename value to parsed"));
  assert.equal(loop.state().reviewComments.rounds.length, 1);
});

test("a verified round pushes, updates the pull request, then answers `changed` and stops verified", () => {
  const { loop, sha } = verifiedWithPull();
  loop.append("review_comment_received", request("review:2", "rename value"));
  loop.prepared();
  loop.attempt({ diff: "rename" });
  const round = loop.state().iterations[1];
  assert.deepEqual(loop.decide(), { kind: "finish" });
  const newSha = round.commit?.sha ?? "";
  assert.notEqual(newSha, sha);
  loop.append("loop_finished", {
    action: "pull-request",
    branch: loop.spec.branch,
    sha: newSha,
    pushed: true,
  });
  assert.deepEqual(loop.decide(), { kind: "open_pull_request" });
  loop.append("pull_request_recorded", { forge: "github", sha: newSha, number: 5, created: false });
  assert.deepEqual(loop.decide(), {
    kind: "answer_comment",
    id: "review:2",
    outcome: "changed",
    sha: newSha,
  });
  loop.append("review_comment_answered", { id: "review:2", outcome: "changed", sha: newSha, reply: "done" });
  const stop = loop.decide();
  assert.equal(stop.kind, "stop");
  assert.match(JSON.stringify(stop), /"reason":"verified".*answered: a verified commit pushed/);
});

test("a round that fails is answered `failed` from the pull request's commit; past maxRounds a request is only answered", () => {
  const { loop, sha } = verifiedWithPull();
  loop.append("review_comment_received", request("review:2", "break it"));
  loop.prepared();
  loop.attempt({ diff: "broken", failing: ["tests"] });
  const answer = loop.decide();
  assert.equal(answer.kind, "answer_comment");
  assert.equal((answer as { outcome: string }).outcome, "failed");
  assert.equal(loop.state().reviewComments.rounds[0].fromSha, sha, "the branch goes back to the PR's commit");
  loop.append("review_comment_answered", { id: "review:2", outcome: "failed", reply: "nothing pushed" });
  assert.equal(loop.decide().kind, "stop");
  loop.append("loop_stopped", { reason: "verified", message: "verified; review comment answered" });

  // maxRounds is 1: the next request gets a reply, no iteration.
  loop.append("review_comment_received", request("review:3", "once more"));
  loop.prepared();
  const limited = loop.decide();
  assert.equal(limited.kind, "answer_comment", JSON.stringify(limited));
  assert.equal((limited as { outcome: string }).outcome, "limit");
  assert.match(String((limited as { reason?: string }).reason), /had its 1 review rounds/);
});

test("with finish.ci the round's push is watched before the reply; red checks are named and the loop stops ci_failed", () => {
  const loop = new FakeLoop(
    fakeSpec({
      finish: {
        action: "pull-request",
        forge: "github",
        api: "https://api.github.com",
        repository: "acme/widget",
        ci: { wait: "10m", maxRepairs: 1 },
      },
    }),
  );
  loop.prepared().attempt();
  const sha = loop.state().iterations[0].commit?.sha ?? "";
  const check = (state: "passed" | "failed") => [{ name: "test", kind: "check-run" as const, state }];
  loop.append("loop_finished", { action: "pull-request", branch: loop.spec.branch, sha, pushed: true });
  loop.append("pull_request_recorded", { forge: "github", sha, number: 5, created: true });
  loop.append("ci_watch_started", { sha, round: 0 });
  loop.append("ci_checks_recorded", { sha, standing: "passed", checks: check("passed") });
  loop.append("loop_stopped", { reason: "verified", message: "verified; CI passed" });

  loop.append("review_comment_received", request("review:2", "rename value"));
  loop.prepared();
  loop.attempt({ diff: "rename" });
  const newSha = loop.state().iterations[1].commit?.sha ?? "";
  loop.append("loop_finished", {
    action: "pull-request",
    branch: loop.spec.branch,
    sha: newSha,
    pushed: true,
  });
  loop.append("pull_request_recorded", { forge: "github", sha: newSha, number: 5, created: false });
  assert.deepEqual(loop.decide(), { kind: "watch_ci", sha: newSha, round: 0 });
  loop.append("ci_watch_started", { sha: newSha, round: 0 });
  loop.append("ci_checks_recorded", { sha: newSha, standing: "failed", checks: check("failed") });
  const answer = loop.decide();
  assert.equal(answer.kind, "answer_comment", JSON.stringify(answer));
  assert.equal((answer as { outcome: string }).outcome, "changed");
  assert.match(String((answer as { reason?: string }).reason), /checks failed on/);
  loop.append("review_comment_answered", { id: "review:2", outcome: "changed", sha: newSha, reply: "done" });
  const stop = loop.decide();
  assert.equal(stop.kind, "stop");
  assert.equal((stop as { reason: string }).reason, "ci_failed");
});

test("the verifier of a round sees the request, and that the goal still decides", () => {
  const base = {
    spec: spec(),
    sha: "c".repeat(40),
    baseSha: "b".repeat(40),
    gateResults: [],
    baseline: {},
    digests: {},
    tamperFlags: [],
    diffPath: "/tmp/diff",
    diff: "",
    changedFiles: ["src/parse.ts"],
  };
  assert.doesNotMatch(buildVerifierPrompt(base), /Review request/);
  const prompt = buildVerifierPrompt({
    ...base,
    request: { author: "alice", text: "rename value to parsed", where: "src/parse.ts:12" },
  });
  assert.match(prompt, /## Review request this commit answers/);
  assert.match(
    prompt,
    /alice, who may push to the repository, then asked \(on src\/parse\.ts:12\):\n> rename value to parsed/,
  );
  assert.match(prompt, /The goal and the gates still decide your verdict/);
});

test("finish.comments: defaults, bounds, and only with a pull request", () => {
  const parse = (finish: Record<string, unknown>) =>
    specSchema.safeParse({ name: "x", goal: "g", maker: { engine: "command", run: "true" }, finish });
  const defaults = parse({ action: "pull-request", comments: {} });
  assert.ok(defaults.success);
  assert.deepEqual(defaults.data.finish.comments, { maxRounds: 3, watch: 7 * 24 * 3_600_000 });
  const off = parse({ action: "pull-request", comments: { maxRounds: 0, watch: "12h" } });
  assert.deepEqual(off.data?.finish.comments, { maxRounds: 0, watch: 12 * 3_600_000 });
  assert.equal(parse({ action: "pull-request", comments: { maxRounds: -1 } }).success, false);
  assert.equal(parse({ action: "pull-request", comments: { rounds: 2 } }).success, false, "unknown key");
  const branch = parse({ action: "branch", comments: { maxRounds: 2 } });
  assert.equal(branch.success, false);
  assert.match(JSON.stringify(branch.error?.issues), /only for action pull-request/);
});
