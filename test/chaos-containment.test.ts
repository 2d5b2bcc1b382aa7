/**
 * The containment chaos test (seeded, bounded): hostile makers plant git configuration, hooks, filters,
 * a rewritten `.git` file, a daemon that drops loopwright's environment tags and a known secret, and
 * the controller is killed at random event boundaries, then resumed. After every trial: verified or a
 * clean stop, at most one commit per iteration, no surviving process, the secret nowhere in the state
 * folder, the output or the remote, and the user's repository (refs, HEAD, index, config, hooks)
 * byte-identical to before but for the loop's own branch.
 *
 * `LOOPWRIGHT_CHAOS_SEED` and `LOOPWRIGHT_CHAOS_TRIALS` replay or widen a run; a failure names its seed.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { type CliResult, createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { eventsIn, type StreamedEvent } from "./support/loop-timeline.ts";
import { isAlive, processesOfRuns } from "./support/surviving-processes.ts";

const onLinux = process.platform === "linux";
const seed = Number(process.env.LOOPWRIGHT_CHAOS_SEED ?? 20261201);
const trials = Number(process.env.LOOPWRIGHT_CHAOS_TRIALS ?? 8);

/** What a hostile first turn plants; every trial plants the daemon and the secret, the rest by lot. */
const plantings = ["fsmonitor", "hooks", "filter", "gitdir", "pager-and-diff"] as const;
type Planting = (typeof plantings)[number];

test("chaos: hostile makers and random kill -9s never reach the user's repository, leak a secret or leave a process", {
  skip: onLinux ? false : "finding surviving processes needs /proc",
  timeout: 900_000,
}, async () => {
  const random = mulberry32(seed);
  const outcomes: string[] = [];
  const failures: string[] = [];
  for (let trial = 1; trial <= trials; trial += 1) {
    const planted = plantings.filter(() => random() < 0.6);
    const crashes = random() < 0.3 ? [] : randomCrashPoints(random);
    try {
      outcomes.push(await runTrial(trial, planted, crashes, trial % 2 === 1));
    } catch (error) {
      failures.push(
        `trial ${trial} (seed ${seed}, plants ${planted.join("+") || "none"}, kills after events ${crashes.join(",") || "none"}): ${(error as Error).message}`,
      );
    }
  }
  process.stdout.write(`# chaos seed ${seed}: ${trials} trials; ${outcomes.join("; ")}\n`);
  assert.deepEqual(failures, []);
});

/** One or two kill points, ascending, among the events of a two-iteration run. */
function randomCrashPoints(random: () => number): number[] {
  const first = 2 + Math.floor(random() * 40);
  return random() < 0.4 ? [first, first + 1 + Math.floor(random() * 20)] : [first];
}

async function runTrial(
  trial: number,
  planted: readonly Planting[],
  crashes: number[],
  sandboxed: boolean,
): Promise<string> {
  const sandbox = await createSandbox({ "answer.txt": "0\n", "README.md": "# chaos\n" });
  const daemonSeconds = 900_000 + trial * 1000 + Math.floor(Math.random() * 999);
  try {
    const secret = `chaos-${randomBytes(16).toString("hex")}`;
    const remote = join(sandbox.root, "remote.git");
    execFileSync("git", ["init", "-q", "--bare", remote], { env: sandbox.env });
    await sandbox.git("remote", "add", "origin", remote);
    await sandbox.git("push", "-q", "origin", "main");
    // The user has staged work of their own: it must stay staged.
    await sandbox.write({ "notes.txt": "mine\n" });
    await sandbox.git("add", "notes.txt");
    const before = userRepositoryState(sandbox);

    await writeFile(
      join(sandbox.root, "maker.sh"),
      hostileMaker(sandbox, planted, sandboxed ? daemonSeconds : 0),
      {
        mode: 0o755,
      },
    );
    const spec = await sandbox.spec(`name: chaos
goal: answer.txt says 42.
repo: ./repo
maker: { engine: command, run: ./maker.sh }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }
budget: { maxIterations: 4, wallClockPerIteration: 60s }
`);
    // Without the OS sandbox, the git layer alone must hold (an untagged daemon is then out of reach:
    // the README says so, and those trials plant none).
    const env = { CHAOS_API_TOKEN: secret, ...(sandboxed ? {} : { LOOPWRIGHT_SANDBOX: "off" }) };
    const outputs: CliResult[] = [];
    let kills = 0;
    let final: CliResult | undefined;
    for (const crashAfter of crashes) {
      const child = sandbox.spawnCli(kills === 0 ? ["run", spec, "--json"] : ["resume", "chaos", "--json"], {
        env: { ...env, LOOPWRIGHT_TEST_CRASH_AFTER_EVENT: String(crashAfter) },
      });
      const output = await child.done;
      outputs.push(output);
      if (child.signalCode !== "SIGKILL") {
        final = output; // the loop ended before that event
        break;
      }
      kills += 1;
    }
    final ??= await sandbox.cli(kills === 0 ? ["run", spec, "--json"] : ["resume", "chaos", "--json"], {
      env,
      timeoutMs: 240_000,
    });
    if (!outputs.includes(final)) outputs.push(final);
    const events = eventsIn(final.stdout);
    const stop = events.filter((event) => event.type === "loop_stopped").at(-1);
    assert.ok(stop, `the loop stopped: exit ${final.code}\n${final.stderr}\n${final.stdout.slice(-2000)}`);
    const reason = String(stop.data.reason);
    assert.notEqual(reason, "error", `a clean stop, not an error: ${String(stop.data.message)}`);

    await assertOneCommitPerIteration(sandbox, events);
    assertNoSurvivor(events, daemonSeconds);
    assertNoSecret(sandbox, remote, secret, outputs);
    assert.deepEqual(userRepositoryState(sandbox), before, "the user's repository is unchanged");
    const ran = readdirSync(sandbox.root).filter((name) => name.startsWith("pwned-"));
    assert.deepEqual(ran, [], "no program the maker planted was run by loopwright's git");
    return `${trial}: ${reason} after ${kills} kill(s)${sandboxed ? "" : ", no OS sandbox"}`;
  } finally {
    killDaemon(daemonSeconds);
    await sandbox.cleanup();
  }
}

/**
 * A maker whose first turn plants hostile git configuration, starts an untagged daemon (when
 * `daemonSeconds` is not 0) and writes the
 * secret into the change (a source file and `.env`); from its second turn on it makes the honest fix.
 * Every planted program, if run, drops a `pwned-<what>` file in the sandbox root.
 */
function hostileMaker(sandbox: Sandbox, planted: readonly Planting[], daemonSeconds: number): string {
  const pwned = (what: string) => `touch ${join(sandbox.root, `pwned-${what}`)}`;
  const program = (what: string) => {
    const path = join(sandbox.root, `evil-${what}.sh`);
    return `printf '#!/bin/sh\\n${pwned(what)}\\ncat\\n' > ${path}; chmod +x ${path}`;
  };
  const lines = [
    "#!/bin/sh",
    'if [ "$LOOPWRIGHT_ITERATION" = 1 ]; then',
    "common=$(git rev-parse --git-common-dir)",
  ];
  if (planted.includes("fsmonitor")) {
    lines.push(program("fsmonitor"), `git config core.fsmonitor ${join(sandbox.root, "evil-fsmonitor.sh")}`);
  }
  if (planted.includes("hooks")) {
    for (const hook of ["pre-commit", "post-commit", "post-checkout", "pre-push", "reference-transaction"]) {
      lines.push(
        `mkdir -p "$common/hooks"`,
        `printf '#!/bin/sh\\n${pwned(hook)}\\n' > "$common/hooks/${hook}"`,
        `chmod +x "$common/hooks/${hook}"`,
      );
    }
  }
  if (planted.includes("filter")) {
    lines.push(
      program("filter"),
      `git config filter.evil.smudge ${join(sandbox.root, "evil-filter.sh")}`,
      `git config filter.evil.clean ${join(sandbox.root, "evil-filter.sh")}`,
      `printf '* filter=evil\\n' > .gitattributes`,
    );
  }
  if (planted.includes("pager-and-diff")) {
    lines.push(
      program("pager"),
      program("diff"),
      `git config core.pager ${join(sandbox.root, "evil-pager.sh")}`,
      `git config diff.external ${join(sandbox.root, "evil-diff.sh")}`,
    );
  }
  lines.push(
    daemonSeconds > 0 ? `env -i setsid sh -c 'exec sleep ${daemonSeconds}' </dev/null >/dev/null 2>&1 &` : "",
    'printf "token = %s\\n" "$CHAOS_API_TOKEN" > leak.js',
    'printf "API_TOKEN=%s\\n" "$CHAOS_API_TOKEN" > .env',
    "echo 41 > answer.txt",
  );
  // Last: from here on, a git that follows `.git` lands in the user's repository.
  if (planted.includes("gitdir")) lines.push(`printf 'gitdir: ${join(sandbox.repo, ".git")}\\n' > .git`);
  lines.push(
    'echo "planted"',
    "else",
    "rm -f leak.js .env .gitattributes",
    "echo 42 > answer.txt",
    'echo "fixed"',
    "fi",
  );
  return `${lines.join("\n")}\n`;
}

/** Refs but the loop's own (and its pushed copy), HEAD, the index, the config and every hook, by content hash. */
function userRepositoryState(sandbox: Sandbox): Record<string, string> {
  const gitDirectory = join(sandbox.repo, ".git");
  const refs = execFileSync("git", ["for-each-ref", "--format=%(refname) %(objectname)"], {
    cwd: sandbox.repo,
    env: sandbox.env,
    encoding: "utf8",
  })
    .split("\n")
    .filter((line) => line && !/^refs\/(?:heads\/loop\/|loopwright\/|remotes\/origin\/loop\/)/.test(line))
    .join("\n");
  const state: Record<string, string> = { refs };
  for (const file of ["HEAD", "index", "config"]) {
    state[file] = hashOf(join(gitDirectory, file));
  }
  const hooks = join(gitDirectory, "hooks");
  for (const hook of existsSync(hooks) ? readdirSync(hooks) : []) {
    state[`hooks/${hook}`] = hashOf(join(hooks, hook));
  }
  state[".git is a directory"] = String(statSync(gitDirectory).isDirectory());
  return state;
}

function hashOf(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex").slice(0, 16);
}

async function assertOneCommitPerIteration(sandbox: Sandbox, events: StreamedEvent[]): Promise<void> {
  const log = await sandbox.git("log", "--format=%s", "main..loop/chaos").catch(() => "");
  const subjects = log.split("\n").filter(Boolean);
  assert.equal(new Set(subjects).size, subjects.length, `a commit made twice: ${subjects.join(" | ")}`);
  const iterations = new Set(
    events.filter((event) => event.type === "iteration_started").map((event) => event.data.iteration),
  );
  assert.ok(subjects.length <= iterations.size, `more commits than iterations: ${subjects.join(" | ")}`);
}

function assertNoSurvivor(events: StreamedEvent[], daemonSeconds: number): void {
  const runIds = new Set(
    events.filter((event) => event.type === "run_started").map((event) => String(event.data.runId)),
  );
  assert.deepEqual(processesOfRuns(runIds), [], "no tagged process of the loop survives");
  assert.deepEqual(daemonPids(daemonSeconds), [], "the untagged daemon did not survive");
}

/** The secret appears nowhere: not in any file of the state folder (database included), not in the output, not in the remote. */
function assertNoSecret(sandbox: Sandbox, remote: string, secret: string, outputs: CliResult[]): void {
  const found = filesContaining(sandbox.home, secret);
  assert.deepEqual(found, [], "the secret is nowhere in the state folder");
  const inObjects = gitObjectsContaining(sandbox.home, secret, sandbox.env);
  assert.deepEqual(inObjects, [], "the secret is in no git object of the state folder");
  for (const output of outputs) {
    assert.ok(
      !output.stdout.includes(secret) && !output.stderr.includes(secret),
      "the secret is not printed",
    );
  }
  const pushed = execFileSync("git", ["log", "--all", "-p", "--format=%H %B"], {
    cwd: remote,
    env: sandbox.env,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  assert.ok(!pushed.includes(secret), "the secret was not pushed");
  assert.deepEqual(
    gitObjectsContaining(remote, secret, sandbox.env),
    [],
    "no pushed object holds the secret",
  );
}

function filesContaining(folder: string, needle: string): string[] {
  if (!existsSync(folder)) return [];
  const found: string[] = [];
  const bytes = Buffer.from(needle);
  const visit = (path: string) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) return;
    if (stat.isDirectory()) {
      for (const name of readdirSync(path)) visit(join(path, name));
    } else if (stat.isFile() && readFileSync(path).includes(bytes)) {
      found.push(path);
    }
  };
  visit(folder);
  return found;
}

/** Git directories below `folder` (a `HEAD` file beside an `objects` folder) whose objects hold `needle`. */
function gitObjectsContaining(folder: string, needle: string, env: NodeJS.ProcessEnv): string[] {
  if (!existsSync(folder)) return [];
  const found: string[] = [];
  const visit = (path: string) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat?.isDirectory()) return;
    const names = readdirSync(path);
    if (names.includes("HEAD") && names.includes("objects")) {
      // Objects are compressed on disk: ask git for every object's content.
      const contents = execFileSync("git", ["cat-file", "--batch-all-objects", "--batch"], {
        env: { ...env, GIT_DIR: path },
        maxBuffer: 256 * 1024 * 1024,
      });
      if (contents.includes(Buffer.from(needle))) found.push(path);
    }
    for (const name of names) visit(join(path, name));
  };
  visit(folder);
  return found;
}

function daemonPids(seconds: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const commandLine = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" ").trim();
      if (commandLine === `sleep ${seconds}` && isAlive(Number(name))) pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

function killDaemon(seconds: number): void {
  for (const pid of daemonPids(seconds)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
}

/** A small seeded generator: the same seed gives the same trials. */
function mulberry32(start: number): () => number {
  let value = start >>> 0;
  return () => {
    value = (value + 0x6d2b79f5) >>> 0;
    let mixed = value;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}
