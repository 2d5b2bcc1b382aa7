/**
 * git through waiting shells (git-shells.ts): the same answers as git started from this process. A fake
 * git (a Node script first on PATH) reports the environment, folder and input it got, or writes chosen
 * bytes: output that holds marker-like lines, NULs, no final newline, more than a pipe holds on both
 * pipes at once, failures, and a git that hangs and is killed with what it started. Then: shells end
 * when their controller dies, and a sandboxed command cannot see them.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { chmod, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  GitError,
  git,
  gitBytes,
  gitResult,
  gitSequence,
  keptOutput,
  setShellRunner,
} from "../src/git/git.ts";
import { gitShellPids, shellQuote, useGitShells } from "../src/git/git-shells.ts";
import { sandboxAvailability } from "../src/sandbox/sandbox-availability.ts";
import { bubblewrapArguments, readOnlyPlan } from "../src/sandbox/sandbox-plan.ts";
import { newFolder, newRepository, setupIdentity } from "./git-fixtures.ts";

const awkward = [
  "it's",
  '"double" $HOME `date` $(date) \\ ; | & > < * ? [a] ~ #',
  "line one\nline two",
  "  spaces  ",
  "-leading-dash",
  "",
  "é ü 中文",
  "'\n) ; exit 0\n(",
  // Values that end a line (as input: a here-document's body, which the shell must not read).
  "ends a line\n",
  "\n",
  "EOF\n$HOME `date` $(date)\n\\\n\t\tindented\n",
  "~00000000000000000000000000000000\n",
];

/** A folder holding a fake `git`: a Node script that does what its last argument says. */
async function fakeGitFolder(): Promise<string> {
  const folder = await newFolder("fake-git");
  const script = `#!${process.execPath}
const mode = process.argv.at(-1);
const chunks = [];
process.stdin.on("data", (chunk) => chunks.push(chunk));
process.stdin.on("end", () => {
  const stdin = Buffer.concat(chunks).toString("utf8");
  if (mode === "report") {
    process.stdout.write(JSON.stringify({ env: process.env, cwd: process.cwd(), parent: process.ppid, stdin, argv: process.argv.slice(2) }));
  } else if (mode === "emit") {
    const out = Buffer.from(process.env.FAKE_STDOUT ?? "", "base64");
    const err = Buffer.from(process.env.FAKE_STDERR ?? "", "base64");
    const repeat = Number(process.env.FAKE_REPEAT ?? "1");
    for (let index = 0; index < repeat; index++) { process.stdout.write(out); process.stderr.write(err); }
    process.exitCode = Number(process.env.FAKE_CODE ?? "0");
  } else if (mode === "hang") {
    const { spawn } = require("node:child_process");
    const sleeper = spawn("sleep", ["1000"], { stdio: "ignore" });
    process.stdout.write(process.pid + " " + sleeper.pid + "\\n");
    if (process.env.FAKE_PIDS) require("node:fs").writeFileSync(process.env.FAKE_PIDS, process.pid + " " + sleeper.pid);
    setInterval(() => {}, 1000);
  }
});
`;
  const path = join(folder, "git");
  await writeFile(path, script);
  await chmod(path, 0o755);
  return folder;
}

const withFake = (folder: string, extra: Record<string, string> = {}) => ({
  PATH: `${folder}:${process.env.PATH}`,
  ...extra,
});

/** Runs `run` with git started from this process (no shells), then restores them. */
async function fromThisProcess<T>(run: () => Promise<T>): Promise<T> {
  setShellRunner(undefined);
  try {
    return await run();
  } finally {
    useGitShells();
  }
}

const sorted = (env: Record<string, string>) => Object.entries(env).sort(([a], [b]) => (a < b ? -1 : 1));
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const until = async (condition: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!condition() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 25));
  return condition();
};

describe("git through waiting shells", () => {
  it("starts git from a shell, with the environment, folder, arguments and input Node's spawn gives", async () => {
    useGitShells();
    const fake = await fakeGitFolder();
    const folder = await newFolder("cwd");
    process.env.LOOPWRIGHT_TEST_PROBE = "inherited 'value'";
    process.env.GIT_DIR = "/nonexistent";
    const saved = { PWD: process.env.PWD, OLDPWD: process.env.OLDPWD };
    try {
      for (const value of awkward) {
        const env = withFake(fake, { GIT_INDEX_FILE: `/x/${value}`, AWKWARD: value, PWD: `/p${value}` });
        const args = ["--flag", value, "report"];
        const shell = JSON.parse(await git(args, folder, { env, input: value }));
        const spawned = JSON.parse(await fromThisProcess(() => git(args, folder, { env, input: value })));
        assert.notEqual(shell.parent, process.pid);
        assert.equal(spawned.parent, process.pid);
        assert.deepEqual(sorted(shell.env), sorted(spawned.env));
        assert.deepEqual([shell.cwd, shell.stdin, shell.argv], [spawned.cwd, spawned.stdin, spawned.argv]);
        assert.equal(shell.env.GIT_DIR, undefined);
        assert.equal(shell.env.LOOPWRIGHT_TEST_PROBE, "inherited 'value'");
      }
      // A variable removed since the shells started is absent, with no PWD or OLDPWD of the shell's own.
      delete process.env.LOOPWRIGHT_TEST_PROBE;
      delete process.env.PWD;
      delete process.env.OLDPWD;
      const report = JSON.parse(await git(["report"], folder, { env: withFake(fake) }));
      assert.notEqual(report.parent, process.pid);
      for (const name of ["LOOPWRIGHT_TEST_PROBE", "PWD", "OLDPWD"])
        assert.equal(report.env[name], undefined);
    } finally {
      delete process.env.GIT_DIR;
      delete process.env.LOOPWRIGHT_TEST_PROBE;
      for (const [name, value] of Object.entries(saved)) if (value !== undefined) process.env[name] = value;
    }
  });

  it("starts git from this process for what a shell cannot state exactly", async () => {
    useGitShells();
    const fake = await fakeGitFolder();
    const folder = await newFolder("cwd");
    const cases: [string, Record<string, string>, { input?: string }][] = [
      ["a name a shell cannot export", { "not-a-shell-name": "x" }, {}],
      ["CDPATH", { CDPATH: "/tmp" }, {}],
      ["ENV", { ENV: "/tmp/startup" }, {}],
      ["a variable the shell manages", { LINENO: "3" }, {}],
      ["a name of the script's own", { lw_git: "/bin/false", lw_kept: "x" }, {}],
      ["input with a NUL", {}, { input: "a\0b" }],
      ["large input", {}, { input: "x".repeat(1024 * 1024) }],
    ];
    for (const [label, extra, options] of cases) {
      const report = JSON.parse(await git(["report"], folder, { env: withFake(fake, extra), ...options }));
      assert.equal(report.parent, process.pid, label);
      for (const [name, value] of Object.entries(extra)) assert.equal(report.env[name], value, label);
      if (options.input !== undefined) assert.equal(report.stdin, options.input, label);
    }
    // A relative folder too (the shell would resolve it from its own).
    const report = JSON.parse(await git(["report"], ".", { env: withFake(fake) }));
    assert.equal(report.parent, process.pid);
    assert.equal(report.cwd, process.cwd());
  });

  it("returns output byte for byte whatever it holds, on both pipes, and the exit code", async () => {
    useGitShells();
    const fake = await fakeGitFolder();
    const folder = await newFolder("cwd");
    const markerLike = `~${"0".repeat(32)} 0\n~${"f".repeat(32)}\n`;
    const samples: [string, Buffer, Buffer, number, number][] = [
      ["marker-like lines", Buffer.from(`${markerLike}after`), Buffer.from(markerLike), 0, 1],
      [
        "NULs and bytes of every value",
        Buffer.from([0, 1, 2, 255, 254, 10, 13, 0, 126]),
        Buffer.from("e\0"),
        3,
        1,
      ],
      ["no final newline", Buffer.from("no newline"), Buffer.from("half a line"), 128, 1],
      ["beyond the pipes' buffers", Buffer.from("0123456789abcdef~"), Buffer.from("err~\n"), 0, 300_000],
      ["stderr only", Buffer.alloc(0), Buffer.from("warning: x\n".repeat(20)), 1, 2000],
    ];
    for (const [label, out, err, code, repeat] of samples) {
      const env = withFake(fake, {
        FAKE_STDOUT: out.toString("base64"),
        FAKE_STDERR: err.toString("base64"),
        FAKE_CODE: String(code),
        FAKE_REPEAT: String(repeat),
      });
      const bytes = await gitBytes(["emit"], folder, { env }).catch((error: unknown) => error);
      const result = await gitResult(["emit"], folder, { env });
      const expectedOut = Buffer.concat(Array.from({ length: repeat }, () => out));
      const expectedErr = Buffer.concat(Array.from({ length: repeat }, () => err)).toString("utf8");
      assert.equal(result.code, code, label);
      assert.equal(result.stdout, expectedOut.toString("utf8"), label);
      assert.equal(result.stderr, expectedErr, label);
      if (code === 0) assert.deepEqual(bytes, expectedOut, label);
      else assert.ok(bytes instanceof GitError && bytes.code === code, label);
    }
    // The shells served all of it.
    const report = JSON.parse(await git(["report"], folder, { env: withFake(fake) }));
    assert.notEqual(report.parent, process.pid);
  });

  it("kills a git that outlives its time limit, with what it started, and serves the next request", async () => {
    useGitShells();
    const fake = await fakeGitFolder();
    const folder = await newFolder("cwd");
    const started = Date.now();
    const result = await gitResult(["hang"], folder, { env: withFake(fake), timeoutMs: 1500 });
    assert.equal(result.timedOut, true);
    assert.equal(result.code, -1);
    assert.ok(Date.now() - started < 10_000);
    const [hung, sleeper] = result.stdout.trim().split(" ").map(Number);
    assert.ok(hung > 0 && sleeper > 0, result.stdout);
    assert.ok(await until(() => !alive(hung) && !alive(sleeper)), "git and its child were killed");
    const root = await newRepository({ "a.txt": "a\n" });
    assert.match(await git(["rev-parse", "HEAD"], root), /^[0-9a-f]{40}\n$/);
  });

  it("answers as git started from here: git's message, a missing folder named, sequences as before", async () => {
    useGitShells();
    const root = await newRepository({ "a.txt": "a\n" });
    for (const value of awkward) {
      await git(["config", "loopwright.value", value], root);
      assert.equal(await git(["config", "--get", "loopwright.value"], root), `${value}\n`);
      const blob = await git(["hash-object", "-w", "--stdin"], root, { input: value, trim: true });
      assert.equal(await git(["cat-file", "blob", blob], root), value);
    }
    await assert.rejects(
      git(["rev-parse", "--verify", "no-such-ref"], root),
      (error: unknown) => error instanceof GitError && error.code === 128 && /fatal/.test(error.message),
    );
    await assert.rejects(
      git(["status"], join(root, "missing")),
      /cannot run git in .*missing: git is not installed or .* does not exist/,
    );
    const head = await git(["rev-parse", "HEAD"], root, { trim: true });
    assert.equal(
      await gitSequence(
        [
          ["rev-parse", "HEAD"],
          ["rev-parse", keptOutput],
        ],
        root,
        {
          trim: true,
          resultOf: 0,
          onlyIf: head,
        },
      ),
      head,
    );
    await assert.rejects(
      gitSequence([["rev-parse", "HEAD"], ["rev-parse", "--verify", "nothing"], ["status"]], root),
      (error: unknown) =>
        error instanceof GitError && /git rev-parse HEAD && git rev-parse/.test(error.message),
    );
    const commit = await gitSequence(
      [
        [...setupIdentity, "commit-tree", `${head}^{tree}`, "-p", head, "-F", "-"],
        ["update-ref", "refs/heads/shells", keptOutput, ""],
      ],
      root,
      { input: "a message with 'quotes' and $dollars\n", trim: true, resultOf: 0 },
    );
    assert.equal(
      await git(["log", "-1", "--format=%B", "refs/heads/shells"], root),
      "a message with 'quotes' and $dollars\n\n",
    );
    assert.equal(await git(["rev-parse", "refs/heads/shells"], root, { trim: true }), commit);
    // More requests at once than there are shells, each its own answer.
    const values = Array.from({ length: 12 }, (_, index) => `value ${index}`);
    const blobs = await Promise.all(
      values.map((value) => git(["hash-object", "--stdin"], root, { input: value, trim: true })),
    );
    const expected = await fromThisProcess(() =>
      Promise.all(values.map((value) => git(["hash-object", "--stdin"], root, { input: value, trim: true }))),
    );
    assert.deepEqual(blobs, expected);
    assert.ok(gitShellPids().length <= 4);
  });

  it("a sequence whose output is kept fails when a later command fails, and stops where onlyIf says", async () => {
    useGitShells();
    const root = await newRepository({ "a.txt": "a\n" });
    const head = await git(["rev-parse", "HEAD"], root, { trim: true });
    const other = "0".repeat(40);
    // The branch is not at `other`: the commit is made, the move refused, the whole sequence fails.
    await assert.rejects(
      gitSequence(
        [
          [...setupIdentity, "commit-tree", `${head}^{tree}`, "-p", head, "-F", "-"],
          ["update-ref", "refs/heads/main", keptOutput, other],
        ],
        root,
        { input: "message\n", trim: true, resultOf: 0 },
      ),
      (error: unknown) => error instanceof GitError && /update-ref/.test(error.message),
    );
    assert.equal(await git(["rev-parse", "refs/heads/main"], root, { trim: true }), head);
    // The kept output is not what onlyIf asks: it is the answer, and nothing after it runs.
    const tree = await gitSequence(
      [
        ["rev-parse", `${head}^{tree}`],
        ["update-ref", "refs/heads/moved", head],
      ],
      root,
      { trim: true, resultOf: 0, onlyIf: other },
    );
    assert.equal(tree, await git(["rev-parse", `${head}^{tree}`], root, { trim: true }));
    assert.equal((await gitResult(["rev-parse", "--verify", "--quiet", "refs/heads/moved"], root)).code, 1);
    // And when it is, the rest runs.
    await gitSequence(
      [
        ["rev-parse", head],
        ["update-ref", "refs/heads/moved", head],
      ],
      root,
      {
        resultOf: 0,
        onlyIf: head,
      },
    );
    assert.equal(await git(["rev-parse", "refs/heads/moved"], root, { trim: true }), head);
  });

  it("quotes for the shell so that it reads back exactly the value", async () => {
    const folder = await newFolder("quote");
    const script = join(folder, "echo.sh");
    await writeFile(script, awkward.map((value) => `printf '%s\\0' ${shellQuote(value)}`).join("\n"));
    const output = spawnSync("/bin/sh", [script], { encoding: "utf8" }).stdout;
    assert.deepEqual(output.split("\0").slice(0, -1), awkward);
  });

  it("shells end when the process that started them dies", async () => {
    const program = `
      import { useGitShells, gitShellPids } from ${JSON.stringify(join(import.meta.dirname, "../src/git/git-shells.ts"))};
      useGitShells();
      console.log(gitShellPids().join(" "));
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ["--input-type=module", "-e", program], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const line = await new Promise<string>((resolve) =>
      child.stdout.once("data", (chunk) => resolve(String(chunk))),
    );
    const pids = line.trim().split(" ").map(Number);
    assert.ok(pids.length >= 1 && pids.every((pid) => pid > 0 && alive(pid)), line);
    child.kill("SIGKILL");
    assert.ok(await until(() => pids.every((pid) => !alive(pid))), "the shells exited on end of input");
  });

  it("a git still running when the process exits is killed, with what it started", async () => {
    const fake = await fakeGitFolder();
    const folder = await newFolder("cwd");
    const program = `
      import { git } from ${JSON.stringify(join(import.meta.dirname, "../src/git/git.ts"))};
      import { useGitShells } from ${JSON.stringify(join(import.meta.dirname, "../src/git/git-shells.ts"))};
      useGitShells();
      git(["hang"], ${JSON.stringify(folder)}, { env: { PATH: ${JSON.stringify(`${fake}:${process.env.PATH}`)}, FAKE_PIDS: process.env.FAKE_PIDS } });
      setTimeout(() => process.exit(0), 3000);
    `;
    const pidsFile = join(folder, "pids");
    const child = spawn(process.execPath, ["--input-type=module", "-e", program], {
      stdio: "inherit",
      env: { ...process.env, FAKE_PIDS: pidsFile },
    });
    const code = await new Promise((resolve) => child.once("exit", resolve));
    assert.equal(code, 0);
    const pids = (await readFile(pidsFile, "utf8")).trim().split(" ").map(Number);
    assert.equal(pids.length, 2);
    assert.ok(await until(() => pids.every((pid) => !alive(pid))), "the hung git and its child were killed");
  });

  it("a sandboxed command sees no shell in its /proc", {
    skip: sandboxAvailability().available ? false : "no bubblewrap sandbox here",
  }, async () => {
    useGitShells();
    const pids = gitShellPids();
    assert.ok(pids.length > 0);
    const probe = pids.map((pid) => `test -e /proc/${pid} && echo seen ${pid}; `).join("");
    const command = ["/bin/sh", "-c", `${probe}ls /proc | grep -c '^[0-9]'`];
    const result = spawnSync("bwrap", bubblewrapArguments(readOnlyPlan, "/", command), { encoding: "utf8" });
    assert.equal(result.status, 0, result.stderr);
    assert.doesNotMatch(result.stdout, /seen/);
    assert.ok(Number(result.stdout.trim()) < 10, `processes visible: ${result.stdout}`);
  });
});
