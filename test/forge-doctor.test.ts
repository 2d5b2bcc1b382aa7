/**
 * `doctor` checks the current repository's forge: remote, forge and API, the token's source and whether
 * the forge accepts it (a GitHub API stand-in on loopback, named by GITHUB_API_URL as in Actions), and
 * warns that the workflow's own GITHUB_TOKEN starts no CI run. Never prints the token.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { type FakeGithub, startFakeGithub } from "./support/fake-github.ts";
import { binary, createSandbox } from "./support/loop-sandbox.ts";

const run = promisify(execFile);
const token = "ghp_doctortoken0123456789";
let github: FakeGithub;
before(async () => {
  github = await startFakeGithub({ token, repository: "acme/widget" });
});
after(async () => {
  await github.close();
});

async function doctor(cwd: string, env: Record<string, string>) {
  const { stdout } = await run(process.execPath, [binary, "doctor"], {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, GITHUB_API_URL: github.url, ...env },
  });
  return stdout;
}

test("doctor names the forge, the token's source, its access, and the GITHUB_TOKEN warning in Actions", async () => {
  const sandbox = await createSandbox({ "a.txt": "a\n" });
  try {
    await sandbox.git("remote", "add", "origin", "https://github.com/acme/widget.git");
    const good = await doctor(sandbox.repo, { GITHUB_TOKEN: token, GITHUB_ACTIONS: "true" });
    assert.match(
      good,
      new RegExp(`✓ forge: github acme/widget at ${github.url}, token from GITHUB_TOKEN: can push`),
    );
    assert.match(
      good,
      /warning: pushes made with the workflow's own GITHUB_TOKEN do not start workflow runs/,
    );
    assert.ok(!good.includes(token), "the token is never printed");
    const bad = await doctor(sandbox.repo, { GH_TOKEN: "wrong" });
    assert.match(
      bad,
      /✗ forge: github acme\/widget .*token from GH_TOKEN: GitHub refused the token from GH_TOKEN \(401/,
    );
    assert.doesNotMatch(bad, /warning: pushes made/);
  } finally {
    await sandbox.cleanup();
  }
});
