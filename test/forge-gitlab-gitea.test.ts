/**
 * `finish: { action: pull-request }` on GitLab (self-hosted under a path prefix) and Gitea/Forgejo (on
 * a port), end to end: the real CLI with the scripted engine, a bare local remote, and each forge's API
 * stand-in on loopback given as `finish.api`. Opened with the evidence as its body and the labels;
 * the open request updated, never duplicated (also after a kill -9 while the forge opens it); a 429 with
 * retry-after waited out and recorded; a bad token stops `validate` naming the variable to fix.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { git } from "../src/git/git.ts";
import { type FakeForge, startFakeGitea, startFakeGitlab } from "./support/fake-forges.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { eventsIn } from "./support/loop-timeline.ts";

const token = "forge-token-0123456789";

const forges = [
  {
    forge: "gitlab",
    variable: "GITLAB_TOKEN",
    start: () => startFakeGitlab({ token, project: "team/widget" }),
    repository: "team/widget",
  },
  {
    forge: "gitea",
    variable: "GITEA_TOKEN",
    start: () => startFakeGitea({ token, repository: "acme/widget" }),
    repository: "acme/widget",
  },
] as const;

async function sandboxWithRemote(): Promise<{ sandbox: Sandbox; base: string }> {
  const sandbox = await createSandbox({ "answer.txt": "0\n" });
  const remote = join(sandbox.root, "origin.git");
  await git(["init", "--quiet", "--bare", remote], sandbox.root);
  await sandbox.git("remote", "add", "origin", remote);
  const base = (await sandbox.git("symbolic-ref", "--short", "HEAD")).trim();
  await sandbox.git("push", "--quiet", "origin", base);
  return { sandbox, base };
}

for (const setting of forges) {
  describe(setting.forge, () => {
    let server: FakeForge;
    before(async () => {
      server = await setting.start();
    });
    after(async () => {
      await server.close();
    });
    const spec = (name: string) => `name: ${name}
goal: answer.txt says 42.
repo: ./repo
maker: { engine: scripted, turns: [{ write: { answer.txt: "42\\n" } }] }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }
budget: { maxIterations: 1 }
finish:
  action: pull-request
  forge: ${setting.forge}
  api: ${server.api}
  repository: ${setting.repository}
  labels: [loopwright]
`;
    const env = () => ({ [setting.variable]: token, PATH: process.env.PATH });

    test("opens one request with the evidence, then updates it; a 429 is waited out", async () => {
      const { sandbox, base } = await sandboxWithRemote();
      try {
        server.rateLimitNext(1);
        const run = await sandbox.cli(["run", await sandbox.spec(spec("opens")), "--json"], { env: env() });
        assert.equal(run.code, 0, run.stderr + run.stdout);
        const recorded = eventsIn(run.stdout).find((event) => event.type === "pull_request_recorded");
        assert.equal(recorded?.data.created, true, JSON.stringify(recorded?.data));
        assert.match(JSON.stringify(recorded?.data.waits), /rate limit.*waiting 1s/);
        const opened = server.requests.filter((request) => request.head.endsWith("opens"));
        assert.equal(opened.length, 1);
        assert.equal(opened[0].base, base);
        assert.deepEqual(opened[0].labels, ["loopwright"]);
        assert.match(opened[0].body, /loopwright never merges/);
        assert.match(opened[0].body, /\| answer \| tests-pass \|/);
        assert.equal(recorded?.data.url, opened[0].url);

        // A later loop on the same branch (the local state gone): the open request is updated.
        opened[0].body = "stale";
        await sandbox.cli(["rm", "opens"], { env: env() });
        await sandbox.git("branch", "-D", opened[0].head);
        await git(["push", "--quiet", "--delete", "origin", opened[0].head], sandbox.repo);
        const again = await sandbox.cli(["run", await sandbox.spec(spec("opens")), "--json"], { env: env() });
        assert.equal(again.code, 0, again.stderr + again.stdout);
        const second = eventsIn(again.stdout).find((event) => event.type === "pull_request_recorded");
        assert.equal(second?.data.created, false, JSON.stringify(second?.data));
        assert.equal(server.requests.filter((request) => request.head.endsWith("opens")).length, 1);
        assert.match(opened[0].body, /loopwright never merges/);
      } finally {
        await sandbox.cleanup();
      }
    });

    test("kill -9 while the forge opens the request, then resume: one request, updated", async () => {
      const { sandbox } = await sandboxWithRemote();
      try {
        const child = sandbox.spawnCli(["run", await sandbox.spec(spec("crashy")), "--json"], {
          env: env(),
        });
        // The forge has stored the request; the controller dies before it hears back or records it.
        server.onCreate = (request) => {
          if (request.head.endsWith("crashy")) child.kill("SIGKILL");
        };
        await child.done;
        server.onCreate = undefined;
        assert.equal(child.signalCode, "SIGKILL");
        assert.equal(server.requests.filter((request) => request.head.endsWith("crashy")).length, 1);
        assert.equal(
          eventsIn(child.output().stdout).some((event) => event.type === "pull_request_recorded"),
          false,
        );
        const resume = await sandbox.cli(["resume", "crashy", "--json"], { env: env() });
        assert.equal(resume.code, 0, resume.stderr + resume.stdout);
        const recorded = eventsIn(resume.stdout).find((event) => event.type === "pull_request_recorded");
        assert.equal(recorded?.data.created, false, JSON.stringify(recorded?.data));
        assert.equal(server.requests.filter((request) => request.head.endsWith("crashy")).length, 1);
      } finally {
        await sandbox.cleanup();
      }
    });

    test("a bad token stops validate, naming the variable", async () => {
      const { sandbox } = await sandboxWithRemote();
      try {
        const specPath = await sandbox.spec(spec("badtoken"));
        const bad = await sandbox.cli(["validate", specPath], {
          env: { ...env(), [setting.variable]: "wrong" },
        });
        assert.notEqual(bad.code, 0);
        assert.match(
          bad.stderr + bad.stdout,
          new RegExp(`refused the token from ${setting.variable} \\(401.*set ${setting.variable}`),
        );
        const none = await sandbox.cli(["validate", specPath], { env: { PATH: process.env.PATH } });
        assert.match(none.stderr + none.stdout, new RegExp(`no .* token: set ${setting.variable}`));
      } finally {
        await sandbox.cleanup();
      }
    });
  });
}
