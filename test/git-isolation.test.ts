/**
 * The user's repository is out of the maker's reach, end to end through the CLI with a hostile
 * `command` maker. Each maker writes the right answer (so the loop verifies and finishes, pushing to a
 * remote) and plants one git trick in its checkout: a `.git` pointing at the user's repository, a
 * `.git` symlink, a `.git` of its own with hooks, an fs monitor, filters, an external diff, textconv, a
 * pager; or the same in the global config it can write. After the loop the user's repository (refs,
 * index, config, hooks, HEAD, staged work) is byte-identical, no planted program ran during the loop
 * or on the user's next commit, and the loop's branch holds the answer.
 *
 * The loops run with the OS sandbox switched off (`LOOPWRIGHT_SANDBOX=off`): on Linux with bubblewrap
 * the sandbox already keeps a maker from rewriting its `.git` config and hooks; these tests check the
 * git layer alone, as on a machine without the sandbox (macOS, or no bubblewrap).
 */
import assert from "node:assert/strict";
import { chmod, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { userRepositoryState as userRepositoryStateOf } from "./support/user-repository-state.ts";

let sandbox: Sandbox;
let markers: string;
let planted: string;
let remote: string;
before(async () => {
  sandbox = await createSandbox({ "README.md": "# repo\n", "answer.txt": "0\n" });
  markers = join(sandbox.root, "markers");
  await mkdir(markers);
  // One program every trick points at: it records that it ran (and under which name), then passes its
  // input through, so that a filter or pager that did run would go unnoticed but for the marker.
  planted = join(sandbox.root, "planted.sh");
  await writeFile(planted, `#!/bin/sh\ntouch "${markers}/ran-$(basename "$0")-$$"\ncat\nexit 0\n`);
  await chmod(planted, 0o755);
  remote = join(sandbox.root, "remote.git");
  await sandbox.git("init", "-q", "--bare", remote);
  await sandbox.git("remote", "add", "origin", remote);
  // Staged work of the user's own, which a loopwright commit through the user's index would take.
  await sandbox.write({ "staged.txt": "the user's staged work\n" });
  await sandbox.git("add", "staged.txt");
});
after(() => sandbox.cleanup());

const userRepositoryState = () => userRepositoryStateOf(sandbox);

/** Lines of shell that make a hook directory full of the planted program, at `$1`. */
const hookNames = [
  "pre-commit",
  "post-commit",
  "commit-msg",
  "prepare-commit-msg",
  "post-checkout",
  "pre-push",
  "reference-transaction",
  "post-index-change",
  "pre-auto-gc",
];
const plantHooks = (folder: string) =>
  [`mkdir -p ${folder}`, ...hookNames.map((name) => `cp "${planted}" ${folder}/${name}`)].join("\n");

/**
 * Every config key that runs a program, pointed at the planted program, set with `git config <scope>`.
 * (Not `core.hooksPath` in the global config: the receiving side of a push to a remote on the same
 * machine reads it, and a remote's hooks are the remote's. Keeping the maker out of the user's global
 * config is write confinement, the sandbox's part.)
 */
const plantConfig = (scope: string) =>
  [
    `git config ${scope} core.fsmonitor "${planted}"`,
    ...(scope === "--global" ? [] : [`git config ${scope} core.hooksPath "${markers}/../hooks-dir"`]),
    `git config ${scope} core.pager "${planted}"`,
    `git config ${scope} diff.external "${planted}"`,
    `git config ${scope} diff.evil.textconv "${planted}"`,
    `git config ${scope} diff.evil.command "${planted}"`,
    `git config ${scope} filter.evil.clean "${planted}"`,
    `git config ${scope} filter.evil.smudge "${planted}"`,
    `git config ${scope} filter.evil.process "${planted}"`,
    `git config ${scope} filter.evil.required true`,
    `git config ${scope} commit.gpgSign true`,
    `git config ${scope} gpg.program "${planted}"`,
    `git config ${scope} core.sshCommand "${planted}"`,
    `git config ${scope} gc.auto 1`,
  ].join("\n");

/** Attributes that send every file through the evil filter and diff driver; committed by the maker. */
const plantAttributes = `printf '* filter=evil diff=evil\\n' > .gitattributes`;

const userGit = () => join(sandbox.repo, ".git");

/** Runs the CLI without the OS sandbox (see the file's comment). */
const cliWithoutSandbox = (args: string[]) => sandbox.cli(args, { env: { LOOPWRIGHT_SANDBOX: "off" } });

const tricks: Record<string, () => string> = {
  "a .git file pointing at the user's .git (gitdir:)": () =>
    `rm -rf .git\nprintf 'gitdir: %s\\n' "${userGit()}" > .git`,
  "a .git symlink to the user's .git": () => `rm -rf .git\nln -s "${userGit()}" .git`,
  "a .git file pointing at the user's .git, with hooks and config planted in it": () =>
    `rm -rf .git\nprintf 'gitdir: %s\\n' "${userGit()}" > .git\n${plantAttributes}`,
  "hooks in its own .git": () => `${plantHooks(".git/hooks")}`,
  "config keys that run programs in its own .git, with attributes": () =>
    `${plantHooks(`${join(sandbox.root, "hooks-dir")}`)}\n${plantConfig("--local")}\n${plantAttributes}`,
  "a .git directory of its own, replaced wholesale": () =>
    `rm -rf .git\ngit init -q\n${plantHooks(".git/hooks")}\n${plantConfig("--local")}\n${plantAttributes}`,
  "config keys that run programs in the global config": () =>
    `${plantHooks(`${join(sandbox.root, "hooks-dir")}`)}\n${plantConfig("--global")}\n${plantAttributes}`,
};

let counter = 0;
for (const [name, trick] of Object.entries(tricks)) {
  test(`a maker that plants ${name} reaches nothing of the user's`, async () => {
    counter += 1;
    const globalConfig = sandbox.env.GIT_CONFIG_GLOBAL ?? "";
    const globalBefore = await readFile(globalConfig, "utf8");
    const before = await userRepositoryState();
    const maker = join(sandbox.root, `maker-${counter}.sh`);
    await writeFile(maker, `#!/bin/sh\nset -e\necho 42 > answer.txt\n${trick()}\n`);
    await chmod(maker, 0o755);
    const spec = await sandbox.spec(
      `name: hostile-${counter}
goal: answer.txt says 42.
repo: ./repo
maker: { engine: command, run: "${maker}" }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }
budget: { maxIterations: 1 }
`,
      join(sandbox.root, `hostile-${counter}.yaml`),
    );
    const result = await cliWithoutSandbox(["run", spec]);
    // The global config is the user's; a hostile maker's edits are put back before the user's commit.
    await writeFile(globalConfig, globalBefore);
    assert.deepEqual(await readdir(markers), [], "no planted program ran during the loop");
    assert.equal(result.code, 0, `verified: ${result.stdout}\n${result.stderr}`);
    assert.deepEqual(await userRepositoryState(), before, "the user's repository is byte-identical");
    const branch = `loop/hostile-${counter}`;
    assert.equal(
      await sandbox.git("show", `${branch}:answer.txt`),
      "42",
      "the answer is on the loop's branch",
    );
    assert.equal(
      await sandbox.git("--git-dir", remote, "rev-parse", branch),
      await sandbox.git("rev-parse", branch),
      "the verified commit was pushed",
    );
    // The user's own next commit (hooks on, as the user has them) runs nothing the maker planted.
    await sandbox.git("commit", "-q", "--allow-empty", "-m", `user commit ${counter}`);
    await sandbox.git("reset", "-q", "--soft", "HEAD~1");
    assert.deepEqual(await readdir(markers), [], "no planted program ran on the user's commit");
  });
}

test("a maker that replaces its checkout with a symlink to the user's checkout gets nothing written there", async () => {
  const before = await userRepositoryState();
  const files = await readdir(sandbox.repo);
  const maker = join(sandbox.root, "maker-symlink.sh");
  await writeFile(
    maker,
    `#!/bin/sh\nset -e\necho 42 > answer.txt\nhere="$(pwd)"\ncd /\nrm -rf "$here"\nln -s "${sandbox.repo}" "$here"\n`,
  );
  await chmod(maker, 0o755);
  const spec = await sandbox.spec(
    `name: symlinker
goal: answer.txt says 42.
repo: ./repo
maker: { engine: command, run: "${maker}" }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }
budget: { maxIterations: 2 }
`,
    join(sandbox.root, "symlinker.yaml"),
  );
  const result = await cliWithoutSandbox(["run", spec]);
  assert.notEqual(result.code, 0, "not verified: there was never a checkout to grade");
  assert.match(result.stdout, /replaced by a symlink/, "the reason is named");
  assert.deepEqual(await readdir(sandbox.repo), files, "no file of the user's was removed or added");
  assert.deepEqual(await userRepositoryState(), before, "the user's repository is byte-identical");
  assert.equal(await sandbox.git("rev-parse", "loop/symlinker"), await sandbox.git("rev-parse", "main"));
  assert.deepEqual(await readdir(markers), []);
});

test("with the OS sandbox as the machine has it, every trick together reaches nothing of the user's", async () => {
  const before = await userRepositoryState();
  const maker = join(sandbox.root, "maker-all.sh");
  const all = Object.values(tricks)
    .map((trick) => `( ${trick().split("\n").join(" ; ")} ) || true`)
    .join("\n");
  await writeFile(maker, `#!/bin/sh\necho 42 > answer.txt\n${all}\nexit 0\n`);
  await chmod(maker, 0o755);
  const spec = await sandbox.spec(
    `name: everything
goal: answer.txt says 42.
repo: ./repo
maker: { engine: command, run: "${maker}" }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }
budget: { maxIterations: 1 }
`,
    join(sandbox.root, "everything.yaml"),
  );
  const globalConfig = sandbox.env.GIT_CONFIG_GLOBAL ?? "";
  const globalBefore = await readFile(globalConfig, "utf8");
  const result = await sandbox.cli(["run", spec]);
  await writeFile(globalConfig, globalBefore);
  assert.deepEqual(await readdir(markers), [], "no planted program ran");
  assert.deepEqual(await userRepositoryState(), before, "the user's repository is byte-identical");
  assert.equal(result.code, 0, `verified: ${result.stdout}\n${result.stderr}`);
  assert.equal(await sandbox.git("show", "loop/everything:answer.txt"), "42");
});
