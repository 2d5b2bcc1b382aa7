/**
 * `finish: { action: pull-request }` end to end: the real CLI with the scripted engine, a bare local git
 * repository as the remote (pushed over its path) and a GitHub API stand-in on loopback given as
 * `finish.api`. A verified loop pushes and opens one pull request with the evidence as its body; an
 * open one is updated, never duplicated; an unchanged tree opens nothing; a rate limit is waited out;
 * a bad token stops `validate` and `run` before any maker turn; kill -9 between push and the pull
 * request, then resume: one pull request.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { git } from "../src/git/git.ts";
import { type FakeGithub, startFakeGithub } from "./support/fake-github.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { eventsIn } from "./support/loop-timeline.ts";

const token = "ghp_testtoken0123456789";
let github: FakeGithub;

before(async () => {
  github = await startFakeGithub({ token, repository: "acme/widget" });
});
after(async () => {
  await github.close();
});

function spec(options: { name: string; write?: string }): string {
  return `name: ${options.name}
goal: answer.txt says 42.
repo: ./repo
maker:
  engine: scripted
  turns:
    - say: "writing the answer"
      write: { answer.txt: "${options.write ?? "42"}\\n" }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }
budget: { maxIterations: 1 }
finish:
  action: pull-request
  forge: github
  api: ${github.url}
  repository: acme/widget
  labels: [loopwright]
`;
}

/** A sandbox whose repository has a bare remote `origin` with its base branch pushed. */
async function sandboxWithRemote(answer = "0"): Promise<{ sandbox: Sandbox; remote: string; base: string }> {
  const sandbox = await createSandbox({ "answer.txt": `${answer}\n` });
  const remote = join(sandbox.root, "origin.git");
  await git(["init", "--quiet", "--bare", remote], sandbox.root);
  await sandbox.git("remote", "add", "origin", remote);
  const base = (await sandbox.git("symbolic-ref", "--short", "HEAD")).trim();
  await sandbox.git("push", "--quiet", "origin", base);
  return { sandbox, remote, base };
}

const env = { GITHUB_TOKEN: token, GH_TOKEN: "", PATH: process.env.PATH };

test("a verified loop pushes its branch and opens one pull request whose body is the evidence", async () => {
  const { sandbox, remote, base } = await sandboxWithRemote();
  try {
    const run = await sandbox.cli(["run", await sandbox.spec(spec({ name: "opens" })), "--json"], { env });
    assert.equal(run.code, 0, run.stderr + run.stdout);
    const events = eventsIn(run.stdout);
    const recorded = events.find((event) => event.type === "pull_request_recorded");
    assert.ok(recorded, "a pull_request_recorded event");
    const pulls = github.pulls.filter((pull) => pull.head.ref.endsWith("opens"));
    assert.equal(recorded.data.created, true, JSON.stringify(recorded.data));
    assert.equal(pulls.length, 1);
    const [pull] = pulls;
    assert.equal(pull.base.ref, base);
    assert.deepEqual(
      pull.labels.map((label) => label.name),
      ["loopwright"],
    );
    assert.match(pull.title, /^opens: answer.txt says 42/);
    assert.match(pull.body, /loopwright never merges/);
    assert.match(pull.body, /answer\.txt says 42\./, "the goal");
    assert.match(
      pull.body,
      /\| answer \| tests-pass \|.*\| failed/,
      "the gate, and its result on the base commit",
    );
    assert.match(pull.body, /### Verifier/);
    assert.match(pull.body, /Total cost/);
    const tip = await git(["rev-parse", `refs/heads/${pull.head.ref}`], remote, { trim: true });
    assert.match(pull.body, new RegExp(tip.slice(0, 12)), "the verified SHA");
    const stopped = events.find((event) => event.type === "loop_stopped");
    assert.match(
      JSON.stringify(stopped?.data),
      /pull request opened: https:\/\/github\.example\/acme\/widget\/pull\//,
    );
  } finally {
    await sandbox.cleanup();
  }
});

test("an open pull request of the branch is updated, never duplicated; a rate limit on the way is waited out", async () => {
  const { sandbox, base } = await sandboxWithRemote();
  try {
    // The forge already holds an open pull request from the loop's branch (an earlier run opened it).
    const head = "loop/updates";
    github.pulls.push({
      number: 900,
      html_url: "https://github.example/acme/widget/pull/900",
      state: "open",
      title: "updates: earlier",
      body: "stale body",
      draft: false,
      head: { ref: head, label: `acme:${head}` },
      base: { ref: base },
      labels: [],
    });
    github.rateLimitNext(1); // the pull request step's first call
    const run = await sandbox.cli(["run", await sandbox.spec(spec({ name: "updates" })), "--json"], { env });
    assert.equal(run.code, 0, run.stderr + run.stdout);
    const recorded = eventsIn(run.stdout).find((event) => event.type === "pull_request_recorded");
    assert.equal(recorded?.data.created, false, JSON.stringify(recorded?.data));
    assert.equal(recorded?.data.number, 900);
    assert.match(JSON.stringify(recorded?.data.waits), /rate limit.*waiting 1s/);
    const pulls = github.pulls.filter((candidate) => candidate.head.ref === head);
    assert.equal(pulls.length, 1);
    assert.match(pulls[0].body, /loopwright never merges/);
  } finally {
    await sandbox.cleanup();
  }
});

test("a verified tree equal to the base's pushes nothing and opens nothing", async () => {
  const { sandbox, remote } = await sandboxWithRemote("42");
  try {
    const run = await sandbox.cli(["run", await sandbox.spec(spec({ name: "unchanged" })), "--json"], {
      env,
    });
    assert.equal(run.code, 0, run.stderr + run.stdout);
    const events = eventsIn(run.stdout);
    assert.equal(events.find((event) => event.type === "loop_finished")?.data.unchanged, true);
    assert.equal(
      events.some((event) => event.type === "pull_request_recorded"),
      false,
    );
    assert.equal(
      github.pulls.some((pull) => pull.head.ref.endsWith("unchanged")),
      false,
    );
    assert.equal(await git(["branch", "--list", "*unchanged*"], remote, { trim: true }), "");
  } finally {
    await sandbox.cleanup();
  }
});

test("a bad token stops validate and run before any maker turn, naming the fix", async () => {
  const { sandbox } = await sandboxWithRemote();
  try {
    const specPath = await sandbox.spec(spec({ name: "badtoken" }));
    const badEnv = { ...env, GITHUB_TOKEN: "ghp_wrong" };
    const validate = await sandbox.cli(["validate", specPath], { env: badEnv });
    assert.notEqual(validate.code, 0);
    assert.match(
      validate.stderr + validate.stdout,
      /finish: GitHub refused the token from GITHUB_TOKEN \(401.*set GITHUB_TOKEN to a valid token/,
    );
    const run = await sandbox.cli(["run", specPath, "--json"], { env: badEnv });
    assert.notEqual(run.code, 0);
    assert.equal(
      eventsIn(run.stdout).some((event) => event.type === "maker_started"),
      false,
    );
    const none = await sandbox.cli(["validate", specPath], {
      env: { ...env, GITHUB_TOKEN: "", GH_TOKEN: "", PATH: "/usr/bin:/bin" },
    });
    assert.match(
      none.stderr + none.stdout,
      /no GitHub token: set GITHUB_TOKEN or GH_TOKEN, or sign in with gh auth login/,
    );
  } finally {
    await sandbox.cleanup();
  }
});

test("kill -9 between the push and the pull request, then resume: one pull request", async () => {
  const { sandbox, remote } = await sandboxWithRemote();
  try {
    // Learn the seq of loop_finished from an uninterrupted run of the same loop in another sandbox.
    const probe = await sandboxWithRemote();
    const probeRun = await probe.sandbox.cli(
      ["run", await probe.sandbox.spec(spec({ name: "crashprobe" })), "--json"],
      { env },
    );
    const finishedSeq = eventsIn(probeRun.stdout).find((event) => event.type === "loop_finished")?.seq;
    await probe.sandbox.cleanup();
    assert.ok(finishedSeq);
    const specPath = await sandbox.spec(
      spec({ name: "crashprobe" }).replace("name: crashprobe", "name: crashy"),
    );
    const child = sandbox.spawnCli(["run", specPath, "--json"], {
      env: { ...env, LOOPWRIGHT_TEST_CRASH_AFTER_EVENT: String(finishedSeq) },
    });
    await child.done;
    assert.equal(child.signalCode, "SIGKILL");
    const branch = await git(["branch", "--list", "--format=%(refname:short)", "*crashy*"], remote, {
      trim: true,
    });
    assert.notEqual(branch, "", "the branch was pushed before the kill");
    assert.equal(github.pulls.filter((pull) => pull.head.ref.endsWith("crashy")).length, 0);
    const resume = await sandbox.cli(["resume", "crashy", "--json"], { env });
    assert.equal(resume.code, 0, resume.stderr + resume.stdout);
    assert.equal(github.pulls.filter((pull) => pull.head.ref.endsWith("crashy")).length, 1);
    // And a second resume of the verified loop does nothing more.
    await sandbox.cli(["resume", "crashy", "--json"], { env });
    assert.equal(github.pulls.filter((pull) => pull.head.ref.endsWith("crashy")).length, 1);
  } finally {
    await sandbox.cleanup();
  }
});

test("a pull request the forge refuses is recorded and named, exit 9; the branch is pushed; resume opens it", async () => {
  const { sandbox, remote } = await sandboxWithRemote();
  try {
    github.missingBases.add("release-9");
    const text = spec({ name: "refused" }).replace(
      "  labels: [loopwright]",
      "  labels: [loopwright]\n  base: release-9",
    );
    const run = await sandbox.cli(["run", await sandbox.spec(text), "--json"], { env });
    assert.equal(run.code, 9, `verified but unpublished exits 9\n${run.stderr}${run.stdout}`);
    const events = eventsIn(run.stdout);
    const recorded = events.find((event) => event.type === "pull_request_recorded");
    assert.match(String(recorded?.data.error), /GitHub API answered 422: Validation Failed/);
    assert.match(
      JSON.stringify(events.find((event) => event.type === "loop_stopped")?.data),
      /no pull request: GitHub API answered 422/,
    );
    assert.notEqual(await git(["branch", "--list", "*refused*"], remote, { trim: true }), "");
    assert.equal(
      github.pulls.some((pull) => pull.head.ref.endsWith("refused")),
      false,
    );
    // The forge is fixed: resume pushes again and opens the pull request.
    github.missingBases.delete("release-9");
    const resume = await sandbox.cli(["resume", "refused", "--json"], { env });
    assert.equal(resume.code, 0, resume.stderr + resume.stdout);
    assert.equal(github.pulls.filter((pull) => pull.head.ref.endsWith("refused")).length, 1);
  } finally {
    await sandbox.cleanup();
  }
});

test("a push that fails ends verified but unpublished (exit 9), saying why", async () => {
  const { sandbox, remote } = await sandboxWithRemote();
  try {
    // The remote refuses every push.
    await writeFile(join(remote, "hooks", "pre-receive"), "#!/bin/sh\necho no pushes here >&2\nexit 1\n", {
      mode: 0o755,
    });
    const run = await sandbox.cli(["run", await sandbox.spec(spec({ name: "nopush" })), "--json"], { env });
    assert.equal(run.code, 9, run.stderr + run.stdout);
    const stopped = eventsIn(run.stdout).find((event) => event.type === "loop_stopped");
    assert.equal(stopped?.data.reason, "verified");
    assert.match(String(stopped?.data.message), /not pushed: /);
    assert.equal(github.pulls.filter((pull) => pull.head.ref.endsWith("nopush")).length, 0);
  } finally {
    await sandbox.cleanup();
  }
});

test("the pull request's base is the branch the loop started from, though the user switched branches since", async () => {
  const { sandbox, base } = await sandboxWithRemote();
  try {
    // The controller dies right after the loop is created (event 1); the user checks out another branch.
    const child = sandbox.spawnCli(["run", await sandbox.spec(spec({ name: "switched" })), "--json"], {
      env: { ...env, LOOPWRIGHT_TEST_CRASH_AFTER_EVENT: "1" },
    });
    await child.done;
    assert.equal(child.signalCode, "SIGKILL");
    await sandbox.git("checkout", "--quiet", "-b", "elsewhere");
    await sandbox.git("push", "--quiet", "origin", "elsewhere");
    const resume = await sandbox.cli(["resume", "switched", "--json"], { env });
    assert.equal(resume.code, 0, resume.stderr + resume.stdout);
    const pulls = github.pulls.filter((pull) => pull.head.ref.endsWith("switched"));
    assert.equal(pulls.length, 1);
    assert.equal(pulls[0].base.ref, base);
    assert.notEqual(base, "elsewhere");
  } finally {
    await sandbox.cleanup();
  }
});
