/**
 * The operating-system sandbox, through the real CLI: a command-engine maker that tries to write
 * outside its worktree, and a command-engine verifier that tries to write anywhere and to read the
 * maker's transcript and brief, are stopped by the kernel (bubblewrap), not by an option list. Each
 * probe reports what it could do into a file in the temporary folder, which the sandbox leaves writable.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { sandboxAvailability } from "../src/sandbox/sandbox-availability.ts";
import { answerGate, approvingVerdict, createAnswerSandbox, runLoop } from "./support/guardrail-loops.ts";
import type { Sandbox } from "./support/loop-sandbox.ts";

const noSandbox = sandboxAvailability().available ? false : "no bubblewrap sandbox on this machine";
let sandbox: Sandbox;
const homeProbe = join(homedir(), `.loopwright-sandbox-probe-${process.pid}`);
before(async () => {
  sandbox = await createAnswerSandbox();
});
after(async () => {
  await rm(homeProbe, { force: true });
  await sandbox.cleanup();
});

/** A shell line that tries `command` and writes `label: allowed|denied` to $REPORT. */
const attempt = (label: string, command: string) =>
  `if ${command} 2>/dev/null; then echo "${label}: allowed" >> "$REPORT"; else echo "${label}: denied" >> "$REPORT"; fi`;

test("a maker writes its worktree and temp, and nothing else: the user's checkout, its .git config and hooks, loopwright's home and $HOME are denied", {
  skip: noSandbox,
}, async () => {
  const report = join(sandbox.root, "maker-report.txt");
  const run = await runLoop(
    sandbox,
    `name: confined-maker
goal: answer.txt says 42.
repo: ./repo
maker: { engine: command, run: ./confined-maker.sh }
verifier: { engine: command, run: "echo ${approvingVerdict.replaceAll('"', '\\"')}" }
gates:
${answerGate}
`,
    {
      env: { REPORT: report },
      scripts: {
        "confined-maker.sh": `#!/bin/sh
${attempt("worktree", "echo 42 > answer.txt")}
${attempt("temp", 'echo x > "$TMPDIR/scratch"')}
${attempt("checkout", `echo planted > ${sandbox.repo}/planted.txt`)}
${attempt("git-config", `git config --file ${sandbox.repo}/.git/config core.fsmonitor 'touch /tmp/pwned'`)}
${attempt("git-hooks", `echo 'exit 0' > ${sandbox.repo}/.git/hooks/pre-commit`)}
${attempt("loopwright-home", 'echo x > "$LOOPWRIGHT_HOME/planted"')}
${attempt("home", `echo x > ${homeProbe}`)}
`,
      },
    },
  );
  assert.equal(run.code, 0, run.stderr + run.stdout);
  assert.deepEqual((await readFile(report, "utf8")).trim().split("\n"), [
    "worktree: allowed",
    "temp: allowed",
    "checkout: denied",
    "git-config: denied",
    "git-hooks: denied",
    "loopwright-home: denied",
    "home: denied",
  ]);
  assert.equal(await sandbox.git("show", "loop/confined-maker:answer.txt"), "42");
  assert.equal(existsSync(join(sandbox.repo, "planted.txt")), false);
  assert.equal(existsSync(join(sandbox.repo, ".git", "hooks", "pre-commit")), false);
  assert.equal(existsSync(homeProbe), false);
});

test("a verifier writes nothing but temp, and sees the evidence but not the maker's transcript or brief", {
  skip: noSandbox,
}, async () => {
  const report = join(sandbox.root, "verifier-report.txt");
  const run = await runLoop(
    sandbox,
    `name: confined-verifier
goal: answer.txt says 42.
repo: ./repo
maker: { engine: command, run: "echo 42 > answer.txt; echo MAKER-SECRET-NOTES" }
verifier: { engine: command, run: ./confined-verifier.sh }
gates:
${answerGate}
`,
    {
      env: { REPORT: report },
      scripts: {
        "confined-verifier.sh": `#!/bin/sh
${attempt("worktree", "echo 7 > answer.txt")}
${attempt("checkout", `echo planted > ${sandbox.repo}/planted.txt`)}
${attempt("home", `echo x > ${homeProbe}`)}
${attempt("temp", 'echo x > "$TMPDIR/scratch"')}
${attempt("own-brief", 'grep -q . "$LOOPWRIGHT_BRIEF_FILE"')}
${attempt("gate-log", `grep -q . "$(sed -n 's/.*"logPath": "\\(.*\\)".*/\\1/p' "$LOOPWRIGHT_CONTEXT_FILE" | head -1)"`)}
${attempt("maker-transcript", 'cat "$LOOPWRIGHT_HOME"/loops/*/iterations/1/maker.log | grep -q MAKER-SECRET-NOTES')}
${attempt("maker-brief", 'cat "$LOOPWRIGHT_HOME"/loops/*/iterations/1/maker-brief.md | grep -q .')}
${attempt("database", 'cat "$LOOPWRIGHT_HOME"/loopwright.db | grep -q .')}
echo ${approvingVerdict}
`,
      },
    },
  );
  assert.equal(run.code, 0, run.stderr + run.stdout);
  assert.deepEqual((await readFile(report, "utf8")).trim().split("\n"), [
    "worktree: denied",
    "checkout: denied",
    "home: denied",
    "temp: allowed",
    "own-brief: allowed",
    "gate-log: allowed",
    "maker-transcript: denied",
    "maker-brief: denied",
    "database: denied",
  ]);
  assert.equal(await sandbox.git("show", "loop/confined-verifier:answer.txt"), "42");
  assert.equal(existsSync(homeProbe), false);
});

test("doctor says whether turns run in the sandbox, and why not", async () => {
  const on = await sandbox.cli(["doctor"]);
  assert.equal(on.code, 0, on.stderr);
  if (!noSandbox) assert.match(on.stdout, /^✓ sandbox: bubblewrap/m);
  const off = await sandbox.cli(["doctor"], { env: { LOOPWRIGHT_SANDBOX: "off" } });
  assert.match(
    off.stdout,
    /^✗ sandbox: no operating-system sandbox \(switched off by LOOPWRIGHT_SANDBOX=off\)/m,
  );
});

test("a loop without the sandbox says so in its timeline (engines_resolved)", async () => {
  const run = await runLoop(
    sandbox,
    `name: unsandboxed
goal: answer.txt says 42.
repo: ./repo
maker: { engine: command, run: "echo 42 > answer.txt" }
verifier: { engine: command, run: "echo ${approvingVerdict.replaceAll('"', '\\"')}" }
gates:
${answerGate}
`,
    { env: { LOOPWRIGHT_SANDBOX: "off" } },
  );
  assert.equal(run.code, 0, run.stderr + run.stdout);
  const [resolved] = run.events.filter((event) => event.type === "engines_resolved") as unknown as {
    data: { warnings: string[] };
  }[];
  assert.ok(
    resolved.data.warnings.some((warning) => /no operating-system sandbox/.test(warning)),
    JSON.stringify(resolved),
  );
});
