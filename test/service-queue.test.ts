/**
 * `run --detach`: the loop is validated and created exactly as `run` does it (same errors, same exit
 * codes, nothing created on an error), then queued; without a service it says how to start one, with
 * one it names it. `ls` shows each queued loop's place in the queue.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { userInfo } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { startService, stopService, submit, timelines, waitForStopped } from "./support/service-harness.ts";

const spec = (name: string, extra = "") => `name: ${name}
goal: ${name}.txt says done.
repo: ./repo
maker: { engine: scripted, turns: [{ write: { ${name}.txt: "done\\n" } }] }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: done, kind: tests-pass, run: "grep -qx done ${name}.txt" }
${extra}`;

async function listed(sandbox: Sandbox) {
  const ls = await sandbox.cli(["ls", "--all", "--json"]);
  assert.equal(ls.code, 0, ls.stderr);
  return JSON.parse(ls.stdout) as { name: string; status: string; queuePosition: number | null }[];
}

test("run --detach without a service: the loop is queued, ls shows its place, and the message says how to start a service", {
  timeout: 120_000,
}, async () => {
  const sandbox = await createSandbox();
  try {
    // What a service killed with kill -9 leaves behind: its record, naming a dead process.
    await mkdir(sandbox.home, { recursive: true });
    const dead = spawnSync("true").pid;
    await writeFile(
      join(sandbox.home, "service.json"),
      JSON.stringify({
        pid: dead,
        host: "127.0.0.1",
        port: 4477,
        url: "http://127.0.0.1:4477",
        startedAt: "",
        processStart: "",
      }),
    );
    const first = await sandbox.spec(spec("first"), join(sandbox.root, "first.yaml"));
    const detached = await sandbox.cli(["run", "--detach", first]);
    assert.equal(detached.code, 0, detached.stderr);
    assert.match(detached.stdout, /^loop first \(first-[0-9a-f]+\) queued, position 1\n/);
    assert.match(detached.stdout, /no service is running: start one with `loopwright serve`/);
    const second = await sandbox.spec(spec("second"), join(sandbox.root, "second.yaml"));
    const json = await sandbox.cli(["run", "--detach", second, "--json"]);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(
      (({ name, status, position, service }) => ({ name, status, position, service }))(
        JSON.parse(json.stdout),
      ),
      { name: "second", status: "queued", position: 2, service: null },
    );

    const rows = await listed(sandbox);
    assert.deepEqual(rows.map((row) => [row.name, row.status, row.queuePosition]).sort(), [
      ["first", "queued", 1],
      ["second", "queued", 2],
    ]);
    const ls = await sandbox.cli(["ls"]);
    assert.match(ls.stdout, /first\s+queued \(#1 in the queue\)/);
    assert.match(ls.stdout, /second\s+queued \(#2 in the queue\)/);
    const queued = timelines(sandbox)
      .get("first")
      ?.find((event) => event.type === "loop_queued");
    assert.deepEqual(queued?.data, { by: { via: "cli", name: userInfo().username }, command: "run" });
    assert.equal(await sandbox.git("branch", "--list", "loop/first"), "", "nothing runs: no branch yet");

    // A service started now runs the queue; one submitted while it runs is announced as its.
    const service = await startService(sandbox);
    try {
      const third = await sandbox.spec(spec("third"), join(sandbox.root, "third.yaml"));
      const announced = await sandbox.cli(["run", "--detach", third]);
      assert.equal(announced.code, 0, announced.stderr);
      assert.match(
        announced.stdout,
        new RegExp(`the service at http://127\\.0\\.0\\.1:\\d+ \\(pid ${service.pid}\\) will start it`),
      );
      const another = await sandbox.cli(["serve", "--port", "0"]);
      assert.equal(another.code, 2, another.stdout + another.stderr);
      assert.match(another.stderr, new RegExp(`a service already runs for .*: pid ${service.pid}`));
      await waitForStopped(sandbox, ["first", "second", "third"], "the service to run the queue");
    } finally {
      await stopService(service);
    }
    assert.deepEqual((await listed(sandbox)).map((row) => [row.name, row.status, row.queuePosition]).sort(), [
      ["first", "stopped", null],
      ["second", "stopped", null],
      ["third", "stopped", null],
    ]);
  } finally {
    await sandbox.cleanup();
  }
});

test("run --detach refuses a bad spec exactly as run does: same message, same exit code, nothing created", {
  timeout: 120_000,
}, async () => {
  const sandbox = await createSandbox();
  try {
    await submit(sandbox, "taken", spec("taken"));
    await sandbox.git("branch", "loop/branch-taken");
    const cases: Record<string, string | undefined> = {
      "missing.yaml": undefined,
      "bad-field.yaml": spec("bad-field", "budget: { maxIterations: -1 }\n"),
      "not-yaml.yaml": "name: [unclosed\n",
      "placeholder.yaml": spec("placeholder").replace(/^goal: .*$/m, "goal: TODO"),
      "no-gate-command.yaml": spec("no-gate-command").replace("grep -qx done", "no-such-tool-xyz"),
      "no-repo.yaml": spec("no-repo").replace("repo: ./repo", "repo: ./nowhere"),
      "taken.yaml": spec("taken"),
      "branch-taken.yaml": spec("branch-taken"),
    };
    for (const [file, text] of Object.entries(cases)) {
      const path = join(sandbox.root, file);
      if (text !== undefined) await sandbox.spec(text, path);
      const [run, detached] = await Promise.all([
        sandbox.cli(["run", path]),
        sandbox.cli(["run", "--detach", path]),
      ]);
      assert.equal(run.code, 2, `${file}: run: ${run.stdout}${run.stderr}`);
      assert.match(
        run.stderr,
        new RegExp(`${file}|taken`),
        `${file}: the problem names the spec or the loop`,
      );
      assert.equal(detached.code, run.code, `${file}: same exit code`);
      assert.equal(detached.stderr, run.stderr, `${file}: same message`);
      assert.equal(detached.stdout, "", file);
    }
    assert.deepEqual(
      (await listed(sandbox)).map((row) => row.name),
      ["taken"],
      "no loop was created by a refused spec",
    );
  } finally {
    await sandbox.cleanup();
  }
});
