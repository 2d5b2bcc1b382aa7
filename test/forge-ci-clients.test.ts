/**
 * The CI clients against the forge stand-ins, without a loop: the checks each forge reports for a
 * commit while CI runs, after it failed and after it passed, and the failed job's log as the client
 * hands it to the digest (timestamps and section markers gone). Where a forge keeps no log (a commit
 * status; a Gitea or Forgejo without the Actions API), the client says so and gives what there is.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type CiClient, standingOf } from "../src/forge/ci-checks.ts";
import { giteaCi } from "../src/forge/gitea-ci.ts";
import { githubCi } from "../src/forge/github-ci.ts";
import { gitlabCi } from "../src/forge/gitlab-ci.ts";
import { digestText } from "../src/gates/digest/index.ts";
import { createFakeCi, type FakeCi } from "./support/fake-ci.ts";
import { startFakeGitea, startFakeGitlab } from "./support/fake-forges.ts";
import { startFakeGithub } from "./support/fake-github.ts";

const token = "ci-client-token-0123";
const failLog = `=================================== FAILURES ===================================
_______________________________ test_parse_date ________________________________

    def test_parse_date():
>       assert parse("2026-12-01").day == 1
E       AssertionError: assert 2 == 1

tests/test_dates.py:12: AssertionError
=========================== short test summary info ============================
FAILED tests/test_dates.py::test_parse_date - AssertionError: assert 2 == 1
========================= 1 failed, 4 passed in 0.05s ==========================`;

const sha = "1234567890abcdef1234567890abcdef12345678";

async function withClient(
  forge: "github" | "gitlab" | "gitea",
  ci: FakeCi,
  body: (client: CiClient, waits: string[]) => Promise<void>,
): Promise<void> {
  const waits: string[] = [];
  const onWait = (message: string) => waits.push(message);
  if (forge === "github") {
    const server = await startFakeGithub({ token, repository: "acme/widget", ci });
    try {
      const target = { forge, api: server.url, repository: "acme/widget" } as const;
      await body(githubCi({ target, token, tokenSource: "GITHUB_TOKEN", onWait }), waits);
    } finally {
      await server.close();
    }
    return;
  }
  const server =
    forge === "gitlab"
      ? await startFakeGitlab({ token, project: "team/widget", ci })
      : await startFakeGitea({ token, repository: "acme/widget", ci });
  try {
    const target = { forge, api: server.api, repository: forge === "gitlab" ? "team/widget" : "acme/widget" };
    const options = { target, token, tokenSource: "TOKEN", onWait };
    await body(forge === "gitlab" ? gitlabCi(options) : giteaCi(options), waits);
  } finally {
    await server.close();
  }
}

for (const forge of ["github", "gitlab", "gitea"] as const) {
  describe(forge, () => {
    test("running, then failed: the failed job's log digests to the failing test", async () => {
      const ci = createFakeCi({ outcomes: ["fail"], pendingLooks: 1, failLog });
      await withClient(forge, ci, async (client) => {
        const running = await client.checks(sha);
        assert.ok(running.length > 0);
        assert.equal(standingOf(running), "pending", JSON.stringify(running));
        const failed = await client.checks(sha);
        assert.equal(standingOf(failed), "failed", JSON.stringify(failed));
        const check = failed.find((candidate) => candidate.state === "failed");
        assert.ok(check);
        const logs = await client.failedLogs(check);
        assert.equal(logs.length, 1);
        assert.match(logs[0].source, /^job (log|trace)/);
        assert.doesNotMatch(logs[0].text, /^\d{4}-\d\d-\d\dT/m, "timestamps removed");
        assert.doesNotMatch(logs[0].text, /section_(start|end)/);
        assert.deepEqual(
          digestText(logs[0].text).failures.map((failure) => failure.name),
          ["tests/test_dates.py::test_parse_date"],
        );
        assert.equal(ci.logDownloads, 1);
      });
    });

    test("passed, and no checks at all is pending; a rate limit is waited out", async () => {
      const ci = createFakeCi({ outcomes: ["pass", "silent"], pendingLooks: 0 });
      await withClient(forge, ci, async (client, waits) => {
        ci.rateLimitNext(1);
        assert.equal(standingOf(await client.checks(sha)), "passed");
        assert.match(waits.join("\n"), /rate limit.*waiting 1s/);
        const other = "abcdefabcdefabcdefabcdefabcdefabcdefabcd";
        assert.deepEqual(await client.checks(other), []);
        assert.equal(standingOf([]), "pending");
      });
    });
  });
}

test("a Gitea or Forgejo without the Actions API: the failed commit status is all there is, and the client says so", async () => {
  const ci = createFakeCi({ outcomes: ["fail"], pendingLooks: 0, failLog });
  ci.noActionsApi = true;
  await withClient("gitea", ci, async (client) => {
    const checks = await client.checks(sha);
    assert.deepEqual(
      checks.map(({ name, kind, state }) => ({ name, kind, state })),
      [{ name: "ci / pytest (push)", kind: "status", state: "failed" }],
    );
    const [log] = await client.failedLogs(checks[0]);
    assert.match(
      log.source,
      /^status only: Gitea keeps no log for a commit status; see http:\/\/.*\/actions\/runs\//,
    );
    assert.equal(log.text, "Failing after 5s");
    assert.equal(ci.logDownloads, 0);
  });
});
