/**
 * Chaos, seeded and bounded: the controller is killed (-9) right after a random event of a two-iteration
 * loop whose maker plants hostile git in its checkout (hooks, config keys that run programs, filters
 * with a `.gitattributes`, then a `.git` pointing at the user's repository), and the loop is resumed.
 * After each resume: verified, one loopwright commit per iteration on the loop's branch, no planted
 * program ran, and the user's repository is byte-identical to before. The OS sandbox is off so that the
 * git layer alone is tested. `LOOPWRIGHT_CHAOS_SEED` replays a run; the seed is printed.
 */
import assert from "node:assert/strict";
import { chmod, mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { eventsIn } from "./support/loop-timeline.ts";
import { userRepositoryState } from "./support/user-repository-state.ts";

const trials = 6;
const seed = Number(process.env.LOOPWRIGHT_CHAOS_SEED ?? 20261201);
const withoutSandbox = { LOOPWRIGHT_SANDBOX: "off" };

/** mulberry32: a small seeded generator, so a failing run can be replayed. */
function generator(start: number): () => number {
  let state = start >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A sandbox with a remote, staged work of the user's, a marker folder and the hostile maker. */
async function hostileSandbox(): Promise<{ sandbox: Sandbox; markers: string; spec: string }> {
  const sandbox = await createSandbox({ "README.md": "# repo\n", "answer.txt": "0\n" });
  const markers = join(sandbox.root, "markers");
  await mkdir(markers);
  const planted = join(sandbox.root, "planted.sh");
  await writeFile(planted, `#!/bin/sh\ntouch "${markers}/ran-$$"\ncat\n`);
  await chmod(planted, 0o755);
  const remote = join(sandbox.root, "remote.git");
  await sandbox.git("init", "-q", "--bare", remote);
  await sandbox.git("remote", "add", "origin", remote);
  await sandbox.write({ "staged.txt": "staged\n" });
  await sandbox.git("add", "staged.txt");
  const hooks = ["pre-commit", "post-commit", "post-checkout", "pre-push", "reference-transaction"];
  const maker = join(sandbox.root, "maker.sh");
  await writeFile(
    maker,
    `#!/bin/sh
if [ "$LOOPWRIGHT_ITERATION" = 1 ]; then echo 41 > answer.txt; else echo 42 > answer.txt; fi
printf '* filter=evil diff=evil\\n' > .gitattributes
${hooks.map((hook) => `cp "${planted}" .git/hooks/${hook} 2>/dev/null`).join("\n")}
for key in core.fsmonitor core.pager diff.external diff.evil.textconv filter.evil.clean filter.evil.smudge filter.evil.process gpg.program; do
  git config "$key" "${planted}" 2>/dev/null
done
git config commit.gpgSign true 2>/dev/null
if [ "$LOOPWRIGHT_ITERATION" != 1 ]; then rm -rf .git; printf 'gitdir: %s\\n' "${join(sandbox.repo, ".git")}" > .git; fi
exit 0
`,
  );
  await chmod(maker, 0o755);
  const spec = await sandbox.spec(`name: chaos
goal: answer.txt says 42.
repo: ./repo
maker: { engine: command, run: "${maker}" }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }
budget: { maxIterations: 3 }
`);
  return { sandbox, markers, spec };
}

/** Verified, two loopwright commits, the answer on the branch and pushed, nothing planted ran. */
async function assertClean(sandbox: Sandbox, markers: string, before: Record<string, string>) {
  assert.deepEqual(await readdir(markers), [], "no planted program ran");
  assert.deepEqual(await userRepositoryState(sandbox), before, "the user's repository is byte-identical");
  const subjects = await sandbox.git("log", "--format=%s", "main..loop/chaos");
  assert.deepEqual(subjects.split("\n"), ["loopwright: chaos iteration 2", "loopwright: chaos iteration 1"]);
  assert.equal(await sandbox.git("show", "loop/chaos:answer.txt"), "42");
}

test(`kill -9 at ${trials} seeded random events of a loop with a hostile git maker, then resume`, {
  skip: process.platform === "linux" ? false : "LOOPWRIGHT_TEST_CRASH_AFTER_EVENT runs are tuned on Linux",
  timeout: 900_000,
}, async () => {
  const random = generator(seed);
  // One uninterrupted run gives the number of events to choose from.
  const reference = await hostileSandbox();
  let eventCount: number;
  try {
    const before = await userRepositoryState(reference.sandbox);
    const run = await reference.sandbox.cli(["run", reference.spec, "--json"], { env: withoutSandbox });
    assert.equal(run.code, 0, run.stderr + run.stdout);
    eventCount = eventsIn(run.stdout).length;
    await assertClean(reference.sandbox, reference.markers, before);
  } finally {
    await reference.sandbox.cleanup();
  }
  const points = Array.from({ length: trials }, () => 2 + Math.floor(random() * (eventCount - 2)));
  process.stdout.write(`# chaos seed ${seed}: ${eventCount} events, killed after ${points.join(", ")}\n`);
  const failures: string[] = [];
  for (const crashAfter of points) {
    const { sandbox, markers, spec } = await hostileSandbox();
    try {
      const before = await userRepositoryState(sandbox);
      const child = sandbox.spawnCli(["run", spec, "--json"], {
        env: { ...withoutSandbox, LOOPWRIGHT_TEST_CRASH_AFTER_EVENT: String(crashAfter) },
      });
      await child.done;
      assert.equal(child.signalCode, "SIGKILL", "the run was killed");
      const resume = await sandbox.cli(["resume", "chaos"], { env: withoutSandbox, timeoutMs: 120_000 });
      assert.equal(resume.code, 0, `resume: ${resume.stdout}${resume.stderr}`);
      await assertClean(sandbox, markers, before);
    } catch (error) {
      failures.push(`killed after event ${crashAfter}: ${(error as Error).message.split("\n")[0]}`);
    } finally {
      await sandbox.cleanup();
    }
  }
  assert.deepEqual(failures, []);
});
