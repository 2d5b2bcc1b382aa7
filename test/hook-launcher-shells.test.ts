/**
 * The launcher (`.loopwright/hook`) under every sh it may meet as /bin/sh, and in the corners of a
 * loaded machine: its answer is Node's, never waits for its `git status`, and Node gets the status's
 * pipe on descriptor 3 (or, without one, runs its own git and never touches descriptor 3). A shell
 * that is not installed is skipped (apt-get install busybox posh mksh ksh zsh yash).
 */
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import {
  launcherOutput,
  launcherStatusSignature,
  launcherStatusTrailer,
  launcherStatusVariables,
} from "../src/hooks/review/status-process.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const spec = `name: hooked
goal: add() adds.
maker: { engine: command, run: "true" }
gates:
  - { id: tests, kind: tests-pass, run: "grep -q 'a + b' math.js" }
`;
const wrong = "export const add = (a, b) => a - b;\n";
const sandboxes: Sandbox[] = [];
after(() => Promise.all(sandboxes.map((sandbox) => sandbox.cleanup())));

async function hookedCheckout(): Promise<Sandbox> {
  const sandbox = await createSandbox({ "math.js": "x\n", "loop.yaml": spec });
  delete sandbox.env.NODE_TEST_CONTEXT;
  sandboxes.push(sandbox);
  const init = await sandbox.cli(["init", "claude"]);
  assert.equal(init.code, 0, init.stderr);
  await sandbox.git("add", "-A");
  await sandbox.git("commit", "-q", "-m", "hook mode");
  return sandbox;
}

function installed(program: string, ...args: string[]): boolean {
  try {
    execFileSync(program, args, { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
const has = (name: string) => installed("/bin/sh", "-c", `command -v ${name}`);

/** A git first on PATH whose `status` sleeps `seconds` (TERM ends it) before running the real one. */
function slowGit(sandbox: Sandbox, seconds: number): string {
  const real = execFileSync("/bin/sh", ["-c", "command -v git"], {
    env: sandbox.env,
    encoding: "utf8",
  }).trim();
  const bin = join(sandbox.root, "slow-git");
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    join(bin, "git"),
    `#!/bin/sh
case " $* " in *" status "*)
  sleep ${seconds} & sleeping=$!
  trap 'kill "$sleeping"; exit 143' TERM
  wait "$sleeping" ;;
esac
exec '${real}' "$@"
`,
  );
  chmodSync(join(bin, "git"), 0o755);
  return `${bin}:${sandbox.env.PATH}`;
}

/** A copy of the checkout's launcher with `node` (and optionally `entry`) replaced; its path. */
function launcherWith(sandbox: Sandbox, node: string, entry?: string): string {
  let text = readFileSync(join(sandbox.repo, ".loopwright", "hook"), "utf8").replace(
    /^node=.*$/m,
    `node='${node}'`,
  );
  if (entry) text = text.replace(/^entry=.*$/m, `entry='${entry}'`);
  const path = join(sandbox.root, `hook-${Math.random().toString(36).slice(2)}`);
  writeFileSync(path, text, { mode: 0o755 });
  return path;
}

/** A launcher whose Node is a real Node that exits 7 at once. */
function launcherExiting7(sandbox: Sandbox): string {
  const entry = join(sandbox.root, "exit7.mjs");
  writeFileSync(entry, "process.exit(7)\n");
  return launcherWith(sandbox, process.execPath, entry);
}

function run(
  argv: string[],
  sandbox: Sandbox,
  path: string,
): Promise<{ code: number | null; seconds: number }> {
  const started = Date.now();
  const env = { ...sandbox.env, CLAUDE_PROJECT_DIR: sandbox.repo, PATH: path };
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), {
      cwd: sandbox.repo,
      env,
      stdio: ["pipe", "ignore", "ignore"],
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, seconds: (Date.now() - started) / 1000 }));
    child.stdin.end("{}");
  });
}

/** `code`, well before git (asleep `gitSeconds`) ends. */
function answeredAtOnce(
  result: { code: number | null; seconds: number },
  code: number,
  gitSeconds = 20,
): void {
  assert.equal(result.code, code);
  assert.ok(
    result.seconds < gitSeconds / 2,
    `the launcher answered after ${result.seconds} s (git sleeps ${gitSeconds} s)`,
  );
}

describe("a Node that ends before the launcher reaches `wait` (a descheduled shell): no wait for git", () => {
  // strace delays each of the shell's close() calls (the shell alone, not -f), as a loaded machine
  // deschedules it between forking the pipeline and its `wait`: Node's SIGCHLD comes before `wait`.
  for (const realNode of [false, true]) {
    test(`${realNode ? "a real Node" : "a sh as Node"} exits 7 at once: 7 at once`, {
      skip: !installed("strace", "-V") || !has("dash"),
    }, async () => {
      const sandbox = await hookedCheckout();
      // Each close() of the shell's is delayed (~35 in a run): git sleeps long enough to tell apart.
      const path = slowGit(sandbox, 60);
      let launcher: string;
      if (realNode) launcher = launcherExiting7(sandbox);
      else {
        const exits7 = join(sandbox.root, "exits-7");
        writeFileSync(exits7, "#!/bin/sh\nexit 7\n", { mode: 0o755 });
        launcher = launcherWith(sandbox, exits7);
      }
      const delay = realNode ? "300000" : "100000";
      const strace = [
        "strace",
        "-o",
        "/dev/null",
        "-e",
        "trace=close",
        "-e",
        `inject=close:delay_exit=${delay}`,
      ];
      answeredAtOnce(await run([...strace, "dash", launcher, "stop"], sandbox, path), 7, 60);
    });
  }
});

describe("every sh as /bin/sh: Node exits 7 while git sleeps 20 s: 7 at once", () => {
  // Only dash execs Node beside git's watcher (its here-documents are pipes); posh's may not, and it
  // names itself in no variable: it must run the wrapper.
  for (const shell of ["dash", "posh", "busybox", "mksh", "ksh93", "zsh", "yash", "bash"]) {
    test(shell, { skip: !has(shell) }, async () => {
      const sandbox = await hookedCheckout();
      const path = slowGit(sandbox, 20);
      const launcher = launcherExiting7(sandbox);
      const argv = shell === "busybox" ? ["busybox", "sh", launcher, "stop"] : [shell, launcher, "stop"];
      answeredAtOnce(await run(argv, sandbox, path), 7);
    });
  }
});

test("in a pid namespace whose /proc is the parent's, Node exits 7 while git sleeps 20 s: 7 at once", {
  // /proc/thread-self/children names pids of the parent namespace there: the pipeline shape would TERM
  // a pid that is not its child and wait for git. The launcher must see it and run the wrapper.
  skip: !installed("unshare", "--pid", "--fork", "true"),
}, async () => {
  const sandbox = await hookedCheckout();
  const path = slowGit(sandbox, 20);
  const launcher = launcherExiting7(sandbox);
  answeredAtOnce(
    await run(["unshare", "--pid", "--fork", "/bin/sh", "-c", 'exec "$0" stop', launcher], sandbox, path),
    7,
  );
});

test("under dash, a Node that exits 127 while git still runs is reported as 127", {
  skip: !has("dash"),
}, async () => {
  // `wait` gives 127 both for a job the shell no longer has and for a Node that exited 127 (an exec
  // that failed): the launcher must know which.
  const sandbox = await hookedCheckout();
  const path = slowGit(sandbox, 20);
  const exits127 = join(sandbox.root, "exits-127");
  writeFileSync(exits127, "#!/bin/sh\nsleep 0.3\nexit 127\n", { mode: 0o755 });
  const result = await run(["dash", launcherWith(sandbox, exits127), "stop"], sandbox, path);
  answeredAtOnce(result, 127);
});

/** The stop's answer on a red tree (math.js written wrong by a Write), through `argv` (a launcher). */
async function stopAnswer(
  sandbox: Sandbox,
  argv: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { ...sandbox.env, CLAUDE_PROJECT_DIR: sandbox.repo };
  const runHook = (event: string, input: Record<string, unknown>) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(argv[0], [...argv.slice(1), event], { cwd: sandbox.repo, env });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk) => {
        stdout += chunk;
      });
      child.stderr.on("data", (chunk) => {
        stderr += chunk;
      });
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(JSON.stringify({ session_id: "s1", cwd: sandbox.repo, ...input }));
    });
  await sandbox.write({ "math.js": wrong });
  await runHook("post-tool", {
    tool_name: "Write",
    tool_input: { file_path: join(sandbox.repo, "math.js") },
  });
  return runHook("stop", {});
}

describe("shells whose `exec 3<&0` is close-on-exec: a stop on a red tree still blocks", () => {
  for (const shell of ["mksh", "ksh93", "zsh", "posh", "busybox", "yash", "dash", "bash"]) {
    test(shell, { skip: !has(shell) }, async () => {
      const sandbox = await hookedCheckout();
      const launcher = join(sandbox.repo, ".loopwright", "hook");
      const answer = await stopAnswer(
        sandbox,
        shell === "busybox" ? ["busybox", "sh", launcher] : [shell, launcher],
      );
      assert.equal(answer.code, 0, answer.stderr);
      assert.equal(JSON.parse(answer.stdout).decision, "block", answer.stdout);
    });
  }
});

test("Node told of a launcher's status without a pipe on descriptor 3 (an older launcher under mksh) runs its own git and does not abort", async () => {
  // Node's own event loop then holds descriptor 3: reading or closing it aborts Node.
  const sandbox = await hookedCheckout();
  const entry = join(process.cwd(), "bin", "loopwright.js");
  const git = execFileSync("/bin/sh", ["-c", "command -v git"], {
    env: sandbox.env,
    encoding: "utf8",
  }).trim();
  const node = join(sandbox.root, "node-without-3");
  // Node is started with descriptor 3 closed, as a close-on-exec `exec 3<&0` leaves it.
  writeFileSync(
    node,
    `#!/bin/sh
${launcherStatusVariables.folder}='${sandbox.repo}' ${launcherStatusVariables.git}='${git}' \\
  ${launcherStatusVariables.signature}='${launcherStatusSignature()}' exec '${process.execPath}' '${entry}' hook "$@" 3<&-
`,
    { mode: 0o755 },
  );
  const answer = await stopAnswer(sandbox, [node]);
  assert.equal(answer.code, 0, answer.stderr);
  assert.equal(JSON.parse(answer.stdout).decision, "block", answer.stdout);
});

describe("the launcher's output is taken as git's only when whole", () => {
  const success = `${launcherStatusTrailer}0\n`;
  test("empty, or porcelain v2 -z records (each ends in NUL), then the trailer: taken", () => {
    assert.equal(launcherOutput(success)?.stdout, "");
    assert.equal(
      launcherOutput(`# branch.oid abc\0? a.js\0${success}`)?.stdout,
      "# branch.oid abc\0? a.js\0",
    );
  });
  test("cut inside a file name that ends in a trailer of its own: discarded", () => {
    assert.equal(launcherOutput(`# branch.oid abc\0? evil${success}`), undefined);
  });
  test("git failed, or the pipe held more than the cap: discarded", () => {
    assert.equal(launcherOutput(`# branch.oid abc\0${launcherStatusTrailer}128\n`), undefined);
    assert.equal(launcherOutput(undefined), undefined);
  });
});
