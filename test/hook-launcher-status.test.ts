/**
 * The launcher (`.loopwright/hook`) starts a stop's `git status` (and a prompt's, with open work)
 * before Node, and the hook reads it on descriptor 3 only when it is exactly the status the hook would
 * run itself: same checkout, same git, same command, exit 0. Everything else falls back to the hook's
 * own git, with the same answer. And the hook reads stdin and writes its answer without streams.
 */
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { readHookInput } from "../src/hooks/hook-io.ts";
import { readLimited } from "../src/hooks/review/status-process.ts";
import { hookState } from "./support/hook-runner.ts";
import { binary, createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { waitFor } from "./support/wait-for.ts";

const tracer = new URL("./support/module-trace.mjs", import.meta.url).pathname;
const spec = `name: hooked
goal: add() adds.
maker: { engine: command, run: "true" }
gates:
  - { id: tests, kind: tests-pass, run: "grep -q 'a + b' math.js" }
`;
const wrong = "export const add = (a, b) => a - b;\n";
const right = "export const add = (a, b) => a + b;\n";

const sandboxes: Sandbox[] = [];
after(() => Promise.all(sandboxes.map((sandbox) => sandbox.cleanup())));

/** A checkout with hook mode set up by `init claude` (the launcher included), committed. */
async function hookedCheckout(): Promise<Sandbox> {
  const sandbox = await createSandbox({ "math.js": wrong, "loop.yaml": spec });
  delete sandbox.env.NODE_TEST_CONTEXT;
  sandboxes.push(sandbox);
  const init = await sandbox.cli(["init", "claude"]);
  assert.equal(init.code, 0, init.stderr);
  await sandbox.git("add", "-A");
  await sandbox.git("commit", "-q", "-m", "hook mode");
  return sandbox;
}

interface LauncherRun {
  output: Record<string, unknown>;
  /** The git subcommands started, by the launcher and by the hook. */
  gitCommands: string[];
  /** Module URLs and `builtin:<name>` lines the hook's Node loaded. */
  modules: string[];
}

let runs = 0;
/** Runs the checkout's launcher as Claude Code does (cwd and CLAUDE_PROJECT_DIR: `folder`). */
function launcher(
  sandbox: Sandbox,
  event: string,
  input: Record<string, unknown>,
  folder = sandbox.repo,
  launcherPath = join(sandbox.repo, ".loopwright", "hook"),
  extraEnv: Record<string, string> = {},
): Promise<LauncherRun> {
  const run = runs++;
  const gitTrace = join(sandbox.root, `git-trace-${run}.txt`);
  const moduleTrace = join(sandbox.root, `module-trace-${run}.txt`);
  const env = {
    ...sandbox.env,
    CLAUDE_PROJECT_DIR: folder,
    LOOPWRIGHT_GIT_TRACE: gitTrace,
    LOOPWRIGHT_MODULE_TRACE: moduleTrace,
    NODE_OPTIONS: `--import ${tracer}`,
    ...extraEnv,
  };
  const child = spawn(launcherPath, [event], { cwd: folder, env });
  let stdout = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stdin.end(JSON.stringify({ session_id: "s1", cwd: sandbox.repo, ...input }));
  const lines = (path: string) =>
    existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean) : [];
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`the launcher exited ${code}: ${stdout}`));
      resolve({
        output: JSON.parse(stdout),
        gitCommands: lines(gitTrace).map((line) => line.split(" ")[1]),
        modules: lines(moduleTrace),
      });
    });
  });
}

/** Opens the work with a Write of math.js (through the launcher too). */
async function openWork(sandbox: Sandbox, content: string): Promise<void> {
  await sandbox.write({ "math.js": content });
  await launcher(sandbox, "post-tool", {
    tool_name: "Write",
    tool_input: { file_path: join(sandbox.repo, "math.js") },
  });
}

describe("the launcher's git status", () => {
  test("a stop and a prompt with open work use it: one git process, no child_process in Node", async () => {
    const sandbox = await hookedCheckout();
    await openWork(sandbox, right);
    await sandbox.write({ "notes/new.txt": "untracked\n" });
    // The first stop runs the gate (that loads child_process); the second finds it green.
    assert.deepEqual((await launcher(sandbox, "stop", {})).output, {});
    const stop = await launcher(sandbox, "stop", {});
    assert.deepEqual(stop.output, {});
    const prompt = await launcher(sandbox, "prompt", {});
    assert.match(JSON.stringify(prompt.output), /2 files changed since the work opened/);
    for (const run of [stop, prompt]) {
      assert.deepEqual(run.gitCommands, ["status"]);
      // Nor node:crypto: the changed files are small, hashed in JavaScript (content-stamps.ts).
      for (const builtin of ["child_process", "net", "stream", "crypto"])
        assert.ok(!run.modules.includes(`builtin:${builtin}`), `the hook loaded ${builtin}`);
    }
    // Its answer is git's: the wrong code is graded again and blocked.
    await sandbox.write({ "math.js": wrong });
    const blocked = await launcher(sandbox, "stop", {});
    assert.equal(blocked.output.decision, "block");
    assert.equal(blocked.gitCommands[0], "status");
  });

  test("a prompt without open work starts none", async () => {
    const sandbox = await hookedCheckout();
    const prompt = await launcher(sandbox, "prompt", {});
    assert.deepEqual(prompt.gitCommands, []);
    assert.match(JSON.stringify(prompt.output), /Definition of done/);
  });

  test("started for another checkout, it is discarded: the hook reads its own", async () => {
    const other = await hookedCheckout();
    await openWork(other, right);
    const sandbox = await hookedCheckout();
    await openWork(sandbox, right);
    await sandbox.write({ "one.txt": "1\n", "two.txt": "2\n" });
    // Claude Code's project is `other`; the input's cwd is `sandbox`: the hook answers for `sandbox`.
    const prompt = await launcher(sandbox, "prompt", {}, other.repo);
    assert.match(JSON.stringify(prompt.output), /3 files changed since the work opened/);
    assert.deepEqual(prompt.gitCommands, ["status", "status"]);
  });

  test("the plugin's launcher starts none where the project's own launcher is (its hook steps aside)", async () => {
    const sandbox = await hookedCheckout();
    await openWork(sandbox, wrong);
    const marketplace = join(sandbox.root, "marketplace");
    assert.equal((await sandbox.cli(["init", "claude", "--plugin", marketplace])).code, 0);
    const plugin = join(marketplace, "loopwright", "bin", "loopwright-hook");
    const stop = await launcher(sandbox, "stop", {}, sandbox.repo, plugin);
    assert.deepEqual(stop.output, {});
    assert.deepEqual(stop.gitCommands, []);
  });

  test("a launcher written by another version (another command) is discarded", async () => {
    const sandbox = await hookedCheckout();
    await openWork(sandbox, right);
    const path = join(sandbox.repo, ".loopwright", "hook");
    // Its command and the signature it passes both name another option, as another version's would.
    writeFileSync(path, readFileSync(path, "utf8").replaceAll("--no-renames", "--find-renames"));
    const stop = await launcher(sandbox, "stop", {});
    assert.deepEqual(stop.output, {});
    assert.deepEqual(stop.gitCommands, ["status", "status"]);
  });

  test("a git status that failed in the launcher is run again by the hook", async () => {
    const sandbox = await hookedCheckout();
    await openWork(sandbox, wrong);
    const path = join(sandbox.repo, ".loopwright", "hook");
    writeFileSync(path, readFileSync(path, "utf8").replace('-C "$folder"', "-C /nonexistent"));
    const stop = await launcher(sandbox, "stop", {});
    assert.equal(stop.output.decision, "block");
    assert.deepEqual(stop.gitCommands.slice(0, 2), ["status", "status"]);
  });
});

/**
 * A git first on PATH whose `status` takes `seconds` (a huge tree, a stuck mount) before it runs the real
 * one; it notes its pid and its sleep's in `started` (a TERM ends both).
 */
function slowGit(sandbox: Sandbox, seconds: number): { path: string; started: string } {
  const real = execFileSync("/bin/sh", ["-c", "command -v git"], {
    env: sandbox.env,
    encoding: "utf8",
  }).trim();
  const bin = join(sandbox.root, "slow-git");
  const started = join(sandbox.root, "slow-git-started.txt");
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    join(bin, "git"),
    `#!/bin/sh
case " $* " in *" status "*)
  sleep ${seconds} & sleeping=$!
  echo "$$ $sleeping" >>'${started}'
  trap 'kill "$sleeping"; exit 143' TERM
  wait "$sleeping" ;;
esac
exec '${real}' "$@"
`,
  );
  chmodSync(join(bin, "git"), 0o755);
  return { path: `${bin}:${sandbox.env.PATH}`, started };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("the launcher's answer does not wait for its git status", () => {
  const gitSeconds = 20;

  test("with hook mode off (the kill switch), it starts none and answers at once", async () => {
    const sandbox = await hookedCheckout();
    await openWork(sandbox, wrong);
    await sandbox.write({ ".loopwright/off": "" });
    const git = slowGit(sandbox, gitSeconds);
    const started = Date.now();
    const stop = await launcher(sandbox, "stop", {}, sandbox.repo, undefined, { PATH: git.path });
    const seconds = (Date.now() - started) / 1000;
    assert.deepEqual(stop.output, {});
    assert.ok(seconds < gitSeconds / 2, `the stop answered after ${seconds} s`);
    assert.ok(!existsSync(git.started), "the launcher started a git status");
  });

  test("inside an engine session, it starts none and answers at once", async () => {
    const sandbox = await hookedCheckout();
    await openWork(sandbox, wrong);
    const git = slowGit(sandbox, gitSeconds);
    const started = Date.now();
    const stop = await launcher(sandbox, "stop", {}, sandbox.repo, undefined, {
      PATH: git.path,
      LOOPWRIGHT_ENGINE_SESSION: "1",
    });
    const seconds = (Date.now() - started) / 1000;
    assert.deepEqual(stop.output, {});
    assert.ok(seconds < gitSeconds / 2, `the stop answered after ${seconds} s`);
    assert.ok(!existsSync(git.started), "the launcher started a git status");
  });

  test("a git status the hook does not use is killed when the hook answers: none is left running", async () => {
    // Claude Code's project (where the launcher starts git) is on; the input's checkout is off, so the
    // hook answers without the launcher's status and runs no git of its own.
    const project = await hookedCheckout();
    await openWork(project, wrong);
    const sandbox = await hookedCheckout();
    await sandbox.write({ ".loopwright/off": "" });
    const git = slowGit(sandbox, gitSeconds);
    const started = Date.now();
    const stop = await launcher(sandbox, "stop", {}, project.repo, undefined, { PATH: git.path });
    const seconds = (Date.now() - started) / 1000;
    assert.deepEqual(stop.output, {});
    assert.ok(seconds < gitSeconds / 2, `the stop answered after ${seconds} s`);
    const pids = readFileSync(git.started, "utf8").trim().split(/\s+/).map(Number);
    assert.equal(pids.length, 2, "the launcher started one git status");
    await waitFor(() => !pids.some(alive), "the launcher's git to end", 2_000);
  });
});

/** The command lines of the processes running now (Linux). */
function runningPrograms(): string[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8");
      } catch {
        return "";
      }
    });
}

describe("the launcher's exit status is Node's, in both its shapes", () => {
  // dash execs Node beside git's watcher, bash runs the wrapper (git's pid read first).
  for (const shell of ["dash", "bash"]) {
    test(`${shell}: Node exits 7 while git still runs: 7 at once, and git is killed`, async () => {
      const project = await hookedCheckout();
      await openWork(project, wrong);
      const git = slowGit(project, 20);
      const path = join(project.repo, ".loopwright", "hook");
      const exits7 = join(project.root, "exits-7");
      writeFileSync(exits7, "#!/bin/sh\nexit 7\n", { mode: 0o755 });
      const launcherPath = join(project.root, "hook-exits-7");
      writeFileSync(launcherPath, readFileSync(path, "utf8").replace(/^node=.*$/m, `node='${exits7}'`));
      const started = Date.now();
      const code = await new Promise<number | null>((resolve, reject) => {
        const child = spawn(shell, [launcherPath, "stop"], {
          cwd: project.repo,
          env: { ...project.env, CLAUDE_PROJECT_DIR: project.repo, PATH: git.path },
          stdio: ["pipe", "ignore", "ignore"],
        });
        child.on("error", reject);
        child.on("close", resolve);
        // The stand-in for Node exits without reading its input: under dash it is exec'd at once and
        // may be gone before the write, which then fails with EPIPE. That is not what is tested.
        child.stdin.on("error", () => {});
        child.stdin.end("{}");
      });
      const seconds = (Date.now() - started) / 1000;
      assert.equal(code, 7);
      assert.ok(seconds < 10, `the launcher ended after ${seconds} s`);
      // Killed early, it may not have noted its pid: looked for by its path instead.
      const gitPath = join(git.path.split(":")[0], "git");
      await waitFor(
        () => !runningPrograms().some((line) => line.includes(gitPath)),
        "the git to end",
        10_000,
      );
    });
  }
});

describe("a SIGTERM that ends the hook ends it in both launcher shapes, as the signal's end", () => {
  // Claude Code's timeout sends SIGTERM. bash's wrapper traps it, passes it to Node and exits 143 (a
  // shell's way of saying "ended by SIGTERM"); under dash the program is exec'd in the launcher's
  // place, so it ends of the signal itself, as a hook command Claude Code ran directly
  // would. Both say the same thing: the hook was ended by SIGTERM, not an answer. (Review of h/hooks:
  // dash answered 143 before; accepted, and held here so that neither shape starts answering a status
  // of its own.)
  for (const shell of ["dash", "bash"]) {
    test(`${shell}: exit 143 or the signal itself`, async () => {
      const project = await hookedCheckout();
      await openWork(project, wrong);
      const git = slowGit(project, 20);
      const path = join(project.repo, ".loopwright", "hook");
      const sleeps = join(project.root, "sleeps");
      const ready = join(project.root, "node-started");
      writeFileSync(sleeps, `#!/bin/sh\ntouch '${ready}'\nexec sleep 30\n`, { mode: 0o755 });
      const launcherPath = join(project.root, "hook-sleeps");
      writeFileSync(launcherPath, readFileSync(path, "utf8").replace(/^node=.*$/m, `node='${sleeps}'`));
      const child = spawn(shell, [launcherPath, "stop"], {
        cwd: project.repo,
        env: { ...project.env, CLAUDE_PROJECT_DIR: project.repo, PATH: git.path },
        stdio: ["pipe", "ignore", "ignore"],
      });
      const ended = new Promise<[number | null, string | null]>((resolve, reject) => {
        child.on("error", reject);
        child.on("close", (code, signal) => resolve([code, signal]));
      });
      child.stdin.end("{}");
      await waitFor(() => existsSync(ready), "the hook to start", 30_000);
      child.kill("SIGTERM");
      const [code, signal] = await ended;
      assert.ok(
        (code === 143 && signal === null) || (code === null && signal === "SIGTERM"),
        `ended with ${code}, ${signal}`,
      );
      if (shell === "bash") assert.deepEqual([code, signal], [143, null]);
    });
  }
});

describe("the launcher's status is read up to a cap (git's own output is capped at 256 MB)", () => {
  test("up to the cap it is read whole; one byte over, it is discarded", () => {
    const folder = mkdtempSync(join(tmpdir(), "loopwright-limited-"));
    const sandboxFile = join(folder, "status");
    writeFileSync(sandboxFile, "x".repeat(100_000));
    const read = (limit: number) => {
      const descriptor = openSync(sandboxFile, "r");
      try {
        return readLimited(descriptor, limit);
      } finally {
        closeSync(descriptor);
      }
    };
    try {
      assert.equal(read(100_000)?.length, 100_000);
      assert.equal(read(99_999), undefined);
    } finally {
      rmSync(folder, { recursive: true });
    }
  });
});

test("with stdin closed, the launcher still runs the hook, which answers", async () => {
  const sandbox = await hookedCheckout();
  await openWork(sandbox, wrong);
  const launcherPath = join(sandbox.repo, ".loopwright", "hook");
  const stdout = execFileSync("/bin/sh", ["-c", 'exec "$0" stop <&-', launcherPath], {
    cwd: sandbox.repo,
    env: { ...sandbox.env, CLAUDE_PROJECT_DIR: sandbox.repo },
    encoding: "utf8",
  });
  assert.equal(JSON.parse(stdout).decision, "block");
});

test("a signal that ends the launcher ends the hook it started (Node is its child there)", async () => {
  const sandbox = await hookedCheckout();
  const started = join(sandbox.root, "gate-started");
  await sandbox.commit({
    "loop.yaml": spec.replace(`"grep -q 'a + b' math.js"`, `"touch ${started}; sleep 4"`),
  });
  await openWork(sandbox, right);
  const stopsBefore = hookState(sandbox.repo).totals.stops;
  const child = spawn(join(sandbox.repo, ".loopwright", "hook"), ["stop"], {
    cwd: sandbox.repo,
    env: { ...sandbox.env, CLAUDE_PROJECT_DIR: sandbox.repo },
  });
  child.stdin.end(JSON.stringify({ session_id: "s1", cwd: sandbox.repo }));
  const ended = new Promise((resolve) => child.on("close", resolve));
  await waitFor(() => existsSync(started), "the gate to start", 60_000);
  child.kill("SIGTERM");
  await ended;
  // Had the hook lived on, it would have recorded this stop once its gate ended (4 s).
  await new Promise((resolve) => setTimeout(resolve, 7_000));
  assert.equal(hookState(sandbox.repo).totals.stops, stopsBefore);
});

describe("a signal that ends the hook while it waits on a hung git status ends that git too", () => {
  // Claude Code's timeout ends the hook with a signal; the launcher's git must not outlive it.
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    test(signal, async () => {
      const sandbox = await hookedCheckout();
      await openWork(sandbox, wrong);
      const git = slowGit(sandbox, 60);
      const child = spawn(join(sandbox.repo, ".loopwright", "hook"), ["stop"], {
        cwd: sandbox.repo,
        env: { ...sandbox.env, CLAUDE_PROJECT_DIR: sandbox.repo, PATH: git.path },
        stdio: ["pipe", "ignore", "ignore"],
      });
      child.stdin.end(JSON.stringify({ session_id: "s1", cwd: sandbox.repo }));
      const ended = new Promise((resolve) => child.on("close", resolve));
      await waitFor(() => existsSync(git.started), "the launcher's git to start", 30_000);
      // Node reads git's pipe once its handler has loaded: let it get there.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const started = Date.now();
      child.kill(signal);
      await ended;
      const seconds = (Date.now() - started) / 1000;
      assert.ok(seconds < 10, `the hook ended ${seconds} s after the ${signal}`);
      const pids = readFileSync(git.started, "utf8").trim().split(/\s+/).map(Number);
      await waitFor(() => !pids.some(alive), "the launcher's git to end", 5_000);
    });
  }
});

test("once the hook has read the launcher's git status, the launcher leaves no process behind while a gate runs", async () => {
  const sandbox = await hookedCheckout();
  const started = join(sandbox.root, "gate-started");
  await sandbox.commit({
    "loop.yaml": spec.replace(`"grep -q 'a + b' math.js"`, `"touch ${started}; sleep 3"`),
  });
  await openWork(sandbox, right);
  const launcherPath = join(sandbox.repo, ".loopwright", "hook");
  const child = spawn(launcherPath, ["stop"], {
    cwd: sandbox.repo,
    env: { ...sandbox.env, CLAUDE_PROJECT_DIR: sandbox.repo },
    stdio: ["pipe", "ignore", "ignore"],
  });
  child.stdin.end(JSON.stringify({ session_id: "s1", cwd: sandbox.repo }));
  const ended = new Promise((resolve) => child.on("close", resolve));
  await waitFor(() => existsSync(started), "the gate to start", 60_000);
  // A zombie's command line is empty: only a live sh running the launcher script names it.
  await waitFor(
    () => !runningPrograms().some((line) => line.includes(launcherPath)),
    "the launcher's processes to end",
    2_000,
  );
  await ended;
});

describe("stdin without streams", () => {
  test("a non-blocking stdin with the input not yet written is read through the stream after EAGAIN", async () => {
    const sandbox = await hookedCheckout();
    const fifo = join(sandbox.root, "stdin.fifo");
    execFileSync("mkfifo", [fifo]);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY);
    writeSync(writer, '{"session_id": ');
    const pending = readHookInput(reader, () => new Socket({ fd: reader, readable: true }));
    setTimeout(() => {
      writeSync(writer, '"late", "cwd": "/x"}\n');
      closeSync(writer);
    }, 200);
    assert.deepEqual(await pending, { session_id: "late", cwd: "/x" });
  });
});

describe("stdout without streams", () => {
  // The process ends at once only when its answer went out whole through blocking writes
  // (bin/loopwright.js); one a stream took over must still reach the reader whole.
  test("a non-blocking stdout pipe that is full when the answer comes: the answer arrives whole", async () => {
    const root = mkdtempSync(join(tmpdir(), "loopwright-stdout-"));
    try {
      const fifo = join(root, "stdout.fifo");
      execFileSync("mkfifo", [fifo]);
      const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
      const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
      const filler = Buffer.alloc(4096, "x");
      let filled = 0;
      for (;;) {
        try {
          filled += writeSync(writer, filler);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "EAGAIN") break;
          throw error;
        }
      }
      const hook = spawn(process.execPath, [binary, "hook", "check"], {
        stdio: ["ignore", writer, "ignore"],
      });
      closeSync(writer);
      const exited = new Promise<number | null>((resolve) => hook.on("close", resolve));
      // Read only once the hook has met the full pipe (its blocking write gave EAGAIN).
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const chunks: Buffer[] = [];
      const stream = new Socket({ fd: reader, readable: true });
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      await new Promise((resolve) => stream.on("end", resolve));
      assert.equal(await exited, 0);
      const text = Buffer.concat(chunks).toString("utf8");
      assert.equal(text.slice(0, filled), "x".repeat(filled));
      assert.deepEqual(JSON.parse(text.slice(filled)), {
        systemMessage: `loopwright hook mode runs on Node.js ${process.version}`,
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
