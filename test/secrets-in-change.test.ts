/**
 * A known secret value in the maker's change is a blocking `secret-in-change` finding naming the file
 * and line (never the value), and the value is never committed, stored, printed or pushed: planted in
 * LESSONS.md, source and `.env`, through the real CLI, with a bare remote to push to.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { createSandbox } from "./support/loop-sandbox.ts";
import { assertNowhere, secretEnvironment } from "./support/planted-secrets.ts";

const execFileAsync = promisify(execFile);

test("a secret planted in LESSONS.md, source and .env is never committed, stored, printed or pushed", async () => {
  const sandbox = await createSandbox({ "README.md": "# repo\n", "src/app.js": "exports.ok = false;\n" });
  const remote = join(sandbox.root, "origin.git");
  try {
    await execFileAsync("git", ["init", "-q", "--bare", remote]);
    await sandbox.git("remote", "add", "origin", remote);
    await sandbox.spec(`name: planted
goal: src/app.js exports ok = true
repo: ./repo
maker:
  engine: scripted
  turns:
    - say: "planted the key"
      run:
        - printf 'Always use the key %s\\n' "$SERVICE_API_TOKEN" > LESSONS.md
        - printf 'SERVICE_API_TOKEN=%s\\n' "$SERVICE_API_TOKEN" > .env
        - printf 'exports.ok = true;\\nconst key = "%s";\\n' "$SERVICE_API_TOKEN" > src/app.js
    - say: "removed the key"
      write: { LESSONS.md: "Keys come from the environment.\\n", src/app.js: "exports.ok = true;\\n" }
      delete: [.env]
gates:
  - { id: ok, kind: tests-pass, run: "node -e 'process.exit(require(\\"./src/app.js\\").ok ? 0 : 1)'" }
budget: { maxIterations: 3 }
`);
    const run = await sandbox.cli(["run", join(sandbox.root, "loop.yaml")], { env: secretEnvironment });
    assert.match(run.stdout, /pushed to origin/, run.stdout + run.stderr);

    const show = await sandbox.cli(["show", "planted", "--json"]);
    const summary = JSON.parse(show.stdout);
    const flags = summary.iterations[0].tamperFlags.filter(
      (flag: { kind: string }) => flag.kind === "secret-in-change",
    );
    const located = flags.map((flag: { file: string; line: number }) => `${flag.file}:${flag.line}`).sort();
    assert.deepEqual(located, [".env:1", "LESSONS.md:1", "src/app.js:2"]);
    for (const flag of flags) assert.match(flag.detail, /SERVICE_API_TOKEN/);

    const brief = await sandbox.cli(["brief", "planted", "--iteration", "2"]);
    assert.match(brief.stdout, /Always use the key \[redacted:SERVICE_API_TOKEN\]/);
    const patch = await readFile(
      join(sandbox.home, "loops", summary.id, "iterations", "1", "diff.patch"),
      "utf8",
    );
    assert.match(patch, /\[redacted:SERVICE_API_TOKEN\]/);
    const logs = await sandbox.cli(["logs", "planted", "--iteration", "1"]);
    await assertNowhere(sandbox, [run.stdout, run.stderr, show.stdout, brief.stdout, logs.stdout], remote);
  } finally {
    await sandbox.cleanup();
  }
});

test("a secret the maker commits itself is undone before the branch moves on: the pushed history holds none", async () => {
  const sandbox = await createSandbox({ "README.md": "# repo\n", "src/app.js": "exports.ok = false;\n" });
  const remote = join(sandbox.root, "origin.git");
  try {
    await execFileAsync("git", ["init", "-q", "--bare", remote]);
    await sandbox.git("remote", "add", "origin", remote);
    // The key is committed, then removed again in a second commit: the history still holds it.
    const commit = "git add -A && git -c user.name=m -c user.email=m@example.com commit -q -m";
    await sandbox.spec(`name: self-commit
goal: src/app.js exports ok = true
repo: ./repo
maker:
  engine: scripted
  turns:
    - run:
        - printf 'exports.ok = true;\\n// %s\\n' "$SERVICE_API_TOKEN" > src/app.js
        - ${commit} with-key
        - printf 'exports.ok = true;\\n' > src/app.js
        - ${commit} without-key
gates:
  - { id: ok, kind: tests-pass, run: "node -e 'process.exit(require(\\"./src/app.js\\").ok ? 0 : 1)'" }
budget: { maxIterations: 2 }
`);
    const run = await sandbox.cli(["run", join(sandbox.root, "loop.yaml")], { env: secretEnvironment });
    const history = await sandbox.git("log", "-p", "--format=%s", "main..loop/self-commit");
    assert.doesNotMatch(history, /with-key|without-key/, "the maker's own commits are not on the branch");
    assert.match(history, /^\+exports\.ok = true;$/m);
    const show = JSON.parse((await sandbox.cli(["show", "self-commit", "--json"])).stdout);
    assert.equal(show.iterations[0].commit, await sandbox.git("rev-parse", "loop/self-commit"));
    await assertNowhere(sandbox, [run.stdout, run.stderr, history], remote, false);
  } finally {
    await sandbox.cleanup();
  }
});

test("finish refuses to push commits holding a value that became a known secret by the time of the push", async () => {
  // The first controller does not hold the value (no such variable) and dies right after the iteration
  // is verified; the one that resumes holds it, and must not push the commit that carries it.
  const value = "sk-late-0123456789abcdef";
  const spec = `name: late-secret
goal: config.txt holds the key
repo: ./repo
maker: { engine: scripted, turns: [{ write: { config.txt: "key ${value}\\n" } }] }
gates:
  - { id: key, kind: tests-pass, run: "grep -q key config.txt" }
budget: { maxIterations: 1 }
`;
  const probe = await createSandbox({ "README.md": "# repo\n" });
  let verifiedAt: number;
  try {
    const run = await probe.cli(["run", await probe.spec(spec), "--json"]);
    const events = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; seq: number; data: { outcome?: string } });
    const ended = events.find(
      (event) => event.type === "iteration_ended" && event.data.outcome === "verified",
    );
    assert.ok(ended, run.stdout);
    verifiedAt = ended.seq;
  } finally {
    await probe.cleanup();
  }

  const sandbox = await createSandbox({ "README.md": "# repo\n" });
  const remote = join(sandbox.root, "origin.git");
  try {
    await execFileAsync("git", ["init", "-q", "--bare", remote]);
    await sandbox.git("remote", "add", "origin", remote);
    const crashed = await sandbox.cli(["run", await sandbox.spec(spec)], {
      env: { LOOPWRIGHT_TEST_CRASH_AFTER_EVENT: String(verifiedAt) },
    });
    assert.notEqual(crashed.code, 0, crashed.stdout);
    const resumed = await sandbox.cli(["resume", "late-secret"], { env: { LATE_API_KEY: value } });
    assert.match(resumed.stdout, /push failed: refused to push: the commits hold the value of LATE_API_KEY/);
    assert.doesNotMatch(resumed.stdout + resumed.stderr, new RegExp(value));
    assert.equal(
      await execFileAsync("git", ["--git-dir", remote, "branch", "--list"]).then((r) => r.stdout),
      "",
    );
  } finally {
    await sandbox.cleanup();
  }
});
