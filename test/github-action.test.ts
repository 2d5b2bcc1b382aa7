/**
 * The composite Action (action.yml) run as a runner would run it, step by step, with a stand-in for the
 * runner: each `run:` step in bash with its `env:` (the `${{ inputs.x || env.Y }}` expressions
 * evaluated), a fake GITHUB_* environment (GITHUB_ACTIONS, GITHUB_API_URL and GITHUB_REPOSITORY
 * pointing at a GitHub API stand-in on loopback, GITHUB_OUTPUT), npm installing this checkout into a
 * temporary global prefix. The `uses: actions/setup-node` step is the runner's and is skipped: Node 24
 * is on PATH already. The loop ends in one pull request; the output says exit code 0.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parse } from "yaml";
import { git } from "../src/git/git.ts";
import { botUser } from "./support/fake-forges.ts";
import { type FakeGithub, startFakeGithub } from "./support/fake-github.ts";
import { createSandbox } from "./support/loop-sandbox.ts";

const checkout = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const token = "ghp_actiontoken0123456789";
let github: FakeGithub;
before(async () => {
  github = await startFakeGithub({ token, repository: "acme/widget" });
});
after(async () => {
  await github.close();
});

interface Step {
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  shell?: string;
}

function runBash(
  script: string,
  cwd: string,
  env: Record<string, string | undefined>,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-e", "-c", script], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** The few expressions action.yml uses: `inputs.x`, `env.X`, and `a || b`. */
function evaluate(
  text: string,
  inputs: Record<string, string>,
  env: Record<string, string | undefined>,
): string {
  return text.replace(/\$\{\{\s*(.+?)\s*\}\}/g, (_whole, expression: string) => {
    for (const alternative of expression.split("||").map((part) => part.trim())) {
      const [scope, name] = alternative.split(".", 2);
      const value = scope === "inputs" ? inputs[name] : scope === "env" ? env[name] : undefined;
      if (value) return value;
    }
    return "";
  });
}

test("the Action installs loopwright with npm, validates, runs the spec and ends in one pull request", async () => {
  const sandbox = await createSandbox({ "answer.txt": "0\n" });
  try {
    const remote = join(sandbox.root, "origin.git");
    await git(["init", "--quiet", "--bare", remote], sandbox.root);
    await sandbox.git("remote", "add", "origin", remote);
    await sandbox.git("push", "--quiet", "origin", "HEAD");
    await writeFile(
      join(sandbox.repo, "loop.yaml"),
      `name: action-loop
goal: answer.txt says 42.
maker:
  engine: scripted
  turns: [{ write: { answer.txt: "42\\n" } }, { write: { NOTE.md: "why 42\\n" } }]
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }
budget: { maxIterations: 1 }
finish: { action: pull-request, forge: github, labels: [loopwright] }
`,
    );
    await sandbox.git("add", "loop.yaml");
    await sandbox.git("commit", "--quiet", "-m", "the loop's spec");
    await sandbox.git("push", "--quiet", "origin", "HEAD");

    const prefix = join(sandbox.root, "npm-prefix");
    await mkdir(prefix);
    const output = join(sandbox.root, "github-output");
    await writeFile(output, "");
    const env: Record<string, string | undefined> = {
      ...sandbox.env,
      PATH: `${join(prefix, "bin")}:${join(checkout, "node_modules", ".bin")}:${process.env.PATH}`,
      npm_config_prefix: prefix,
      GITHUB_ACTIONS: "true",
      GITHUB_API_URL: github.url,
      GITHUB_REPOSITORY: "acme/widget",
      GITHUB_WORKSPACE: sandbox.repo,
      GITHUB_OUTPUT: output,
      GITHUB_TOKEN: token, // the workflow's own token: the Action must warn that it starts no CI
      GH_TOKEN: "",
    };
    const inputs = {
      spec: "loop.yaml",
      "comments-of": "",
      version: "latest",
      package: checkout,
      "github-token": "",
      args: "",
    };
    const action = parse(await readFile(join(checkout, "action.yml"), "utf8")) as {
      runs: { using: string; steps: Step[] };
    };
    assert.equal(action.runs.using, "composite");
    const runSteps = async (given: Record<string, string>): Promise<string> => {
      const transcript: string[] = [];
      for (const step of action.runs.steps) {
        if (step.uses) {
          assert.match(step.uses, /^actions\/setup-node@/);
          continue;
        }
        assert.equal(step.shell, "bash");
        const stepEnv: Record<string, string | undefined> = { ...env };
        for (const [name, value] of Object.entries(step.env ?? {}))
          stepEnv[name] = evaluate(String(value), given, env);
        // Asynchronously: the API stand-in answers from this process's event loop.
        const result = await runBash(String(step.run), sandbox.repo, stepEnv);
        transcript.push(result.stdout, result.stderr);
        assert.equal(result.status, 0, `step failed:\n${step.run}\n${result.stdout}\n${result.stderr}`);
      }
      return transcript.join("\n");
    };
    const text = await runSteps(inputs);
    assert.match(text, /pushes made with the workflow's own GITHUB_TOKEN do not start workflow runs/);
    assert.match(text, /pull request opened: https:\/\/github\.example\/acme\/widget\/pull\/\d+/);
    assert.equal(github.pulls.filter((pull) => pull.head.ref.endsWith("action-loop")).length, 1);
    assert.match(await readFile(output, "utf8"), /^exit-code=0$/m);

    // A later workflow on `issue_comment`: a fresh checkout (the loop's branch only on the remote), the
    // loop's state kept (actions/cache in docs/github-action.md), `comments-of` set.
    const [pull] = github.pulls.filter((candidate) => candidate.head.ref.endsWith("action-loop"));
    await sandbox.git("branch", "-D", pull.head.ref);
    github.permissions.set("alice", "write");
    github.comment({
      pull: pull.number,
      author: "alice",
      body: "/loopwright explain 42 in NOTE.md",
      kind: "conversation",
    });
    await writeFile(output, "");
    const round = await runSteps({ ...inputs, spec: "", "comments-of": "action-loop" });
    assert.match(round, /1 review request/);
    const replies = github.comments.filter(
      (comment) => comment.pull === pull.number && comment.author === botUser,
    );
    assert.equal(replies.length, 1, round);
    assert.match(replies[0].body, /^@alice Done in /);
    const tip = await git(["rev-parse", `refs/heads/${pull.head.ref}`], remote, { trim: true });
    assert.equal(await git(["show", `${tip}:NOTE.md`], remote, { trim: true }), "why 42");
    assert.match(await readFile(output, "utf8"), /^exit-code=0$/m);
  } finally {
    await sandbox.cleanup();
  }
});
