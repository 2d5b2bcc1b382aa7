/**
 * `finish: { action: pull-request }` end to end: the real CLI with the scripted engine, a bare local git
 * repository as the remote (pushed over its path) and a GitHub API stand-in on loopback given as
 * `finish.api`. A verified loop pushes and opens one pull request with the evidence as its body; an
 * open one is updated, never duplicated; an unchanged tree opens nothing; a rate limit is waited out;
 * a bad token stops `validate` and `run` before any maker turn; kill -9 between push and the pull
 * request, then resume: one pull request.
 */
import assert from "node:assert/strict";
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
