/**
 * `finish.ci` end to end on GitHub, GitLab and Gitea/Forgejo: the real CLI with the scripted engine, a
 * bare local git repository as the remote, and each forge's API stand-in answering with its real CI
 * shapes (check runs and statuses; pipelines, jobs and traces; statuses, Actions runs and job logs).
 * CI fails once with a pytest log whose failing test the digest names: a repair iteration quotes it,
 * CI passes, the loop is `verified`. CI never reports: `ci.wait` passes, the loop stops `ci_failed`
 * (exit 8). A rate limit during the watch is waited out. kill -9 during the watch, then resume: the
 * round goes on, one pull request, one repair.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { git } from "../src/git/git.ts";
import { createFakeCi, type FakeCi } from "./support/fake-ci.ts";
import { startFakeGitea, startFakeGitlab } from "./support/fake-forges.ts";
import { startFakeGithub } from "./support/fake-github.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { eventsIn, readTimeline, type StreamedEvent } from "./support/loop-timeline.ts";

const token = "forge-token-0123456789";

/** What pytest prints for one failing test, as a CI job runs it. */
const failLog = `============================= test session starts ==============================
platform linux -- Python 3.12.3, pytest-8.3.4, pluggy-1.5.0
collected 2 items

tests/test_answer.py .F                                                  [100%]

=================================== FAILURES ===================================
______________________________ test_answer_on_ci _______________________________

    def test_answer_on_ci():
>       assert read_answer(encoding="latin-1") == 42
E       assert 41 == 42

tests/test_answer.py:7: AssertionError
=========================== short test summary info ============================
FAILED tests/test_answer.py::test_answer_on_ci - assert 41 == 42
========================= 1 failed, 1 passed in 0.03s ==========================`;

interface Server {
  /** The API base URL for finish.api. */
  api: string;
  /** How many pull (merge) requests the forge holds for a branch ending in `name`. */
  requestsFor(name: string): number;
  bodyFor(name: string): string;
  close(): Promise<void>;
}

const forges: {
  forge: "github" | "gitlab" | "gitea";
  variable: string;
  repository: string;
  start(ci: FakeCi): Promise<Server>;
}[] = [
  {
    forge: "github",
    variable: "GITHUB_TOKEN",
    repository: "acme/widget",
    async start(ci) {
      const server = await startFakeGithub({ token, repository: "acme/widget", ci });
      const mine = (name: string) => server.pulls.filter((pull) => pull.head.ref.endsWith(name));
      return {
        api: server.url,
        requestsFor: (name) => mine(name).length,
        bodyFor: (name) => mine(name)[0]?.body ?? "",
        close: () => server.close(),
      };
    },
  },
  {
    forge: "gitlab",
    variable: "GITLAB_TOKEN",
    repository: "team/widget",
    async start(ci) {
      const server = await startFakeGitlab({ token, project: "team/widget", ci });
      const mine = (name: string) => server.requests.filter((request) => request.head.endsWith(name));
      return {
        api: server.api,
        requestsFor: (name) => mine(name).length,
        bodyFor: (name) => mine(name)[0]?.body ?? "",
        close: () => server.close(),
      };
    },
  },
  {
    forge: "gitea",
    variable: "GITEA_TOKEN",
    repository: "acme/widget",
    async start(ci) {
      const server = await startFakeGitea({ token, repository: "acme/widget", ci });
      const mine = (name: string) => server.requests.filter((request) => request.head.endsWith(name));
      return {
        api: server.api,
        requestsFor: (name) => mine(name).length,
        bodyFor: (name) => mine(name)[0]?.body ?? "",
        close: () => server.close(),
      };
    },
  },
];

async function sandboxWithRemote(): Promise<Sandbox> {
  const sandbox = await createSandbox({ "answer.txt": "0\n" });
  const remote = join(sandbox.root, "origin.git");
  await git(["init", "--quiet", "--bare", remote], sandbox.root);
  await sandbox.git("remote", "add", "origin", remote);
  const base = (await sandbox.git("symbolic-ref", "--short", "HEAD")).trim();
  await sandbox.git("push", "--quiet", "origin", base);
  return sandbox;
}

function typed(events: StreamedEvent[], type: string): StreamedEvent[] {
  return events.filter((event) => event.type === type);
}

for (const setting of forges) {
  describe(setting.forge, () => {
    const ci = createFakeCi({ failLog, pendingLooks: 1 });
    let server: Server;
    before(async () => {
      server = await setting.start(ci);
    });
    after(async () => {
      await server.close();
    });
    const spec = (name: string, wait = "30s") => `name: ${name}
goal: answer.txt says 42.
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { answer.txt: "42\\n" }
    - write: { encoding.txt: "latin-1\\n" }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }
budget: { maxIterations: 1 }
finish:
  action: pull-request
  forge: ${setting.forge}
  api: ${server.api}
  repository: ${setting.repository}
  ci: { wait: ${wait}, maxRepairs: 2, poll: 200ms }
`;
    const env = () => ({ [setting.variable]: token, GH_TOKEN: "", PATH: process.env.PATH });
    /** Where the loop that failed CI once was at its first watch, its failed round and its repair: crash points. */
    const seqs: { watch?: number; failed?: number; repair?: number } = {};

    test("CI fails once; the repair iteration quotes the failing test; CI passes; verified; a rate limit is waited out", async () => {
      const sandbox = await sandboxWithRemote();
      try {
        ci.outcomes.splice(0, ci.outcomes.length, "fail", "pass");
        ci.shas.length = 0;
        ci.rateLimitNext(1);
        const run = await sandbox.cli(["run", await sandbox.spec(spec("repairs")), "--json"], { env: env() });
        assert.equal(run.code, 0, run.stderr + run.stdout);
        const events = eventsIn(run.stdout);
        seqs.watch = typed(events, "ci_watch_started")[0]?.seq;
        assert.equal(typed(events, "ci_watch_started").length, 2, "one round per pushed commit");
        const recorded = typed(events, "ci_checks_recorded");
        assert.match(JSON.stringify(recorded[0].data.waits), /rate limit.*waiting 1s/);
        const failed = recorded.find((event) => event.data.standing === "failed");
        assert.ok(failed, "a failed standing");
        seqs.failed = failed.seq;
        seqs.repair = typed(events, "ci_repair_started")[0]?.seq;
        const failures = failed.data.failures as { failures: string[]; logSource: string; digest: string }[];
        assert.ok(
          failures.some((failure) => failure.failures.includes("tests/test_answer.py::test_answer_on_ci")),
          JSON.stringify(failures),
        );
        assert.match(failures[0].logSource, /job (log|trace)/);
        assert.equal(typed(events, "ci_repair_started").length, 1);
        const iterations = typed(events, "iteration_started");
        assert.equal(iterations.length, 2, "the first iteration and one repair");
        const brief = String(iterations[1].data.brief);
        assert.match(brief, /## CI failed on the pull request \(repair 1 of at most 2\)/);
        assert.match(brief, /tests\/test_answer\.py::test_answer_on_ci/);
        assert.match(brief, /assert 41 == 42/);
        assert.equal(recorded.at(-1)?.data.standing, "passed");
        assert.equal(server.requestsFor("repairs"), 1, "one pull request, updated");
        assert.match(server.bodyFor("repairs"), /### CI[\s\S]*\| failed \|[\s\S]*\| passed \|/);
        const stopped = typed(events, "loop_stopped")[0];
        assert.equal(stopped.data.reason, "verified");
        assert.match(
          String(stopped.data.message),
          /CI passed on [0-9a-f]{12} \(\d+ checks?\) after 1 repair round/,
        );
        assert.equal(ci.shas.length, 2);
      } finally {
        await sandbox.cleanup();
      }
    });

    test("CI never reports: ci.wait passes and the loop stops ci_failed (exit 8) with the reason", async () => {
      const sandbox = await sandboxWithRemote();
      try {
        ci.outcomes.splice(0, ci.outcomes.length, "silent");
        ci.shas.length = 0;
        const run = await sandbox.cli(["run", await sandbox.spec(spec("silent", "2s")), "--json"], {
          env: env(),
        });
        assert.equal(run.code, 8, run.stderr + run.stdout);
        const events = eventsIn(run.stdout);
        assert.equal(typed(events, "ci_checks_recorded").at(-1)?.data.standing, "timed_out");
        const stopped = typed(events, "loop_stopped")[0];
        assert.equal(stopped.data.reason, "ci_failed");
        assert.match(
          String(stopped.data.message),
          /did not finish within finish\.ci\.wait \(2s\): no check reported at all/,
        );
        assert.match(server.bodyFor("silent"), /\| timed_out \| none reported \|/);
      } finally {
        await sandbox.cleanup();
      }
    });

    // One forge is enough for the end of the repairs: decide's rule is the same on every forge.
    if (setting.forge === "github")
      test("CI still fails after maxRepairs repairs: the loop stops ci_failed naming the check", async () => {
        const sandbox = await sandboxWithRemote();
        try {
          ci.outcomes.splice(0, ci.outcomes.length, "fail");
          ci.shas.length = 0;
          const text = spec("stubborn").replace("maxRepairs: 2", "maxRepairs: 1");
          const run = await sandbox.cli(["run", await sandbox.spec(text), "--json"], { env: env() });
          assert.equal(run.code, 8, run.stderr + run.stdout);
          const events = eventsIn(run.stdout);
          assert.equal(typed(events, "ci_repair_started").length, 1);
          assert.equal(typed(events, "ci_watch_started").length, 2);
          const stopped = typed(events, "loop_stopped")[0];
          assert.equal(stopped.data.reason, "ci_failed");
          assert.match(
            String(stopped.data.message),
            /checks failed on [0-9a-f]{12} after 1 repair round: test$/,
          );
          assert.equal(server.requestsFor("stubborn"), 1);
        } finally {
          await sandbox.cleanup();
        }
      });

    /**
     * Where to kill the controller: during the first round's watch (after its first look); on GitHub also
     * right after the failed round is recorded, and right after the repair is recorded.
     */
    const crashPoints = (): { name: string; seq: number }[] => {
      const points = [{ name: "during the watch", seq: (seqs.watch ?? 0) + 1 }];
      if (setting.forge === "github")
        points.push(
          { name: "after the failed round", seq: seqs.failed ?? 0 },
          { name: "after the repair is recorded", seq: seqs.repair ?? 0 },
        );
      return points;
    };
    test("kill -9 during the CI watch and repair, then resume: the round goes on; one pull request, one repair", async () => {
      assert.ok(seqs.watch && seqs.failed && seqs.repair, "the first test ran");
      for (const [index, point] of crashPoints().entries()) {
        const sandbox = await sandboxWithRemote();
        const name = `crashes${index}`;
        try {
          ci.outcomes.splice(0, ci.outcomes.length, "fail", "pass");
          ci.shas.length = 0;
          const downloads = ci.logDownloads;
          const specPath = await sandbox.spec(spec("repairs").replace("name: repairs", `name: ${name}`));
          const child = sandbox.spawnCli(["run", specPath, "--json"], {
            env: { ...env(), LOOPWRIGHT_TEST_CRASH_AFTER_EVENT: String(point.seq) },
          });
          await child.done;
          assert.equal(child.signalCode, "SIGKILL", point.name);
          assert.equal(server.requestsFor(name), 1);
          const resume = await sandbox.cli(["resume", name, "--json"], { env: env() });
          assert.equal(resume.code, 0, `${point.name}: ${resume.stderr}${resume.stdout}`);
          const timeline = readTimeline(sandbox);
          const count = (type: string) => timeline.filter((event) => event.type === type).length;
          assert.equal(
            count("ci_watch_started"),
            2,
            `${point.name}: one round per commit, resumed, not restarted`,
          );
          assert.equal(count("ci_repair_started"), 1, point.name);
          assert.equal(count("iteration_started"), 2, point.name);
          assert.equal(
            count("pull_request_recorded"),
            2,
            `${point.name}: opened once, updated after the repair`,
          );
          assert.equal(server.requestsFor(name), 1, point.name);
          assert.equal(ci.logDownloads - downloads, 1, `${point.name}: the failed log was read once`);
          const stopped = timeline.filter((event) => event.type === "loop_stopped");
          assert.equal(JSON.parse(stopped.at(-1)?.data ?? "{}").reason, "verified", point.name);
        } finally {
          await sandbox.cleanup();
        }
      }
    });
  });
}
