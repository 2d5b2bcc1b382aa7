/**
 * The store and the controller survive abuse, through the real CLI and a real SQLite file: another
 * process holding the database's write lock, damaged event rows, a read-only home, a corrupt file.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { survivors } from "./support/surviving-processes.ts";
import { waitFor } from "./support/wait-for.ts";

const quickSpec = (name: string) => `name: ${name}
goal: done.txt exists
repo: ./repo
maker: { engine: scripted, turns: [{ write: { done.txt: "yes\\n" } }] }
gates:
  - { id: done, kind: tests-pass, run: "ls | grep -q '^done[.]txt$'" }
budget: { maxIterations: 1 }
`;

async function runQuickLoop(sandbox: Sandbox, name: string): Promise<void> {
  const run = await sandbox.cli([
    "run",
    await sandbox.spec(quickSpec(name), join(sandbox.root, `${name}.yaml`)),
  ]);
  assert.equal(run.code, 0, run.stderr + run.stdout);
}

test("another process holding the database's write lock while gates end does not crash the controller or orphan a gate", async () => {
  const sandbox = await createSandbox({ "README.md": "# repo\n" });
  const marker = join(sandbox.root, "fast-gate-ran");
  try {
    await sandbox.spec(`name: busy
goal: done.txt exists
repo: ./repo
maker: { engine: scripted, turns: [{ write: { done.txt: "yes\\n" } }] }
gates:
  - { id: fast, kind: tests-pass, run: "if ls | grep -q '^done[.]txt$'; then touch ${marker}; fi" }
  - { id: slow, kind: tests-pass, run: "if ls | grep -q '^done[.]txt$'; then sleep 9; fi" }
budget: { maxIterations: 1 }
`);
    const child = sandbox.spawnCli(["run", join(sandbox.root, "loop.yaml")]);
    await waitFor(() => existsSync(marker), "the fast gate of iteration 1", 60_000);
    // Hold the write lock past SQLite's own busy timeout while the fast gate ends and the slow one runs.
    const holder = new DatabaseSync(join(sandbox.home, "loopwright.db"), { timeout: 10_000 });
    holder.exec("BEGIN IMMEDIATE");
    await delay(7_000);
    holder.exec("COMMIT");
    holder.close();
    const result = await child.done;
    assert.equal(result.code, 0, result.stderr + result.stdout);
    assert.match(result.stdout, /stopped: verified/);
    assert.doesNotMatch(result.stderr, /internal error|Unhandled|database is locked/);
    assert.deepEqual(survivors(sandbox.home), [], "no gate left running");
  } finally {
    await sandbox.cleanup();
  }
});

test("a store failure while a gate still runs is an iteration error, not an unhandled rejection that orphans the gate", async () => {
  const sandbox = await createSandbox({ "README.md": "# repo\n" });
  const marker = join(sandbox.root, "fast-gate-ran");
  const locked = join(sandbox.root, "database-locked");
  try {
    // The fast gate ends only once the test holds the write lock: its end is recorded under the lock.
    await sandbox.spec(`name: busy-past-bound
goal: done.txt exists
repo: ./repo
maker: { engine: scripted, turns: [{ write: { done.txt: "yes\\n" } }] }
gates:
  - { id: fast, kind: tests-pass, run: "if ls | grep -q '^done[.]txt$'; then touch ${marker}; while [ ! -f ${locked} ]; do sleep 0.05; done; fi" }
  - { id: slow, kind: tests-pass, run: "if ls | grep -q '^done[.]txt$'; then sleep 6; fi" }
budget: { maxIterations: 1 }
`);
    // The store gives up after 1 s: the fast gate's end cannot be recorded while the slow gate runs.
    const child = sandbox.spawnCli(["run", join(sandbox.root, "loop.yaml")], {
      env: { LOOPWRIGHT_STORE_BUSY_MS: "1000" },
    });
    await waitFor(() => existsSync(marker), "the fast gate of iteration 1", 60_000);
    const holder = new DatabaseSync(join(sandbox.home, "loopwright.db"), { timeout: 10_000 });
    holder.exec("BEGIN IMMEDIATE");
    writeFileSync(locked, "");
    await delay(3_000);
    const during = survivors(sandbox.home);
    holder.exec("COMMIT");
    holder.close();
    const result = await child.done;
    assert.ok(
      during.some((line) => line.includes("sleep 6")),
      `the slow gate ran on: ${during.join("; ")}`,
    );
    assert.doesNotMatch(result.stderr, /internal error|Unhandled|ERR_UNHANDLED_REJECTION/, result.stderr);
    // The iteration is an infrastructure error; the next one is graded normally and verified.
    assert.equal(result.code, 0, result.stderr + result.stdout);
    assert.match(result.stdout, /stopped: verified/);
    assert.match(
      result.stdout,
      /iteration 1: infra_error: run_gates failed: .*loopwright\.db: the database is locked/,
    );
    assert.deepEqual(survivors(sandbox.home), [], "no gate left running");
  } finally {
    await sandbox.cleanup();
  }
});

test("a damaged event row (bad JSON, unknown type) is skipped and named; every other loop is still served", async () => {
  const sandbox = await createSandbox({ "README.md": "# repo\n" });
  try {
    await runQuickLoop(sandbox, "healthy");
    await runQuickLoop(sandbox, "damaged");
    const database = new DatabaseSync(join(sandbox.home, "loopwright.db"));
    const { id } = database.prepare("SELECT id FROM loops WHERE name = 'damaged'").get() as { id: string };
    database.prepare("UPDATE events SET data = '{not json' WHERE loop_id = ? AND seq = 3").run(id);
    database
      .prepare(
        "INSERT INTO events (loop_id, seq, type, version, at, data) VALUES (?, 1000, 'comet_arrived', 9, '2026-01-01T00:00:00Z', 'null')",
      )
      .run(id);
    database.close();

    const list = await sandbox.cli(["ls", "--all"]);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^healthy\s+stopped \(verified\)/m);
    assert.match(list.stdout, /^damaged\s+/m);
    assert.match(
      list.stderr,
      new RegExp(
        `loop damaged \\(${id}\\): 2 damaged event rows skipped \\(seq 3: bad JSON; seq 1000: unknown type comet_arrived\\)`,
      ),
    );
    const json = await sandbox.cli(["ls", "--all", "--json"]);
    assert.equal(json.code, 0, json.stderr);
    assert.equal(JSON.parse(json.stdout).length, 2);
    for (const name of ["healthy", "damaged"]) {
      const show = await sandbox.cli(["show", name]);
      assert.equal(show.code, 0, show.stderr);
    }
  } finally {
    await sandbox.cleanup();
  }
});

test("a read-only home still allows ls and show", async () => {
  const sandbox = await createSandbox({ "README.md": "# repo\n" });
  let mounted = false;
  try {
    await runQuickLoop(sandbox, "readable");
    if (process.getuid?.() === 0) {
      // root writes through chmod -w: a read-only bind mount is what stops it.
      execFileSync("mount", ["--bind", sandbox.home, sandbox.home]);
      mounted = true;
      execFileSync("mount", ["-o", "remount,ro,bind", sandbox.home]);
    } else {
      execFileSync("chmod", ["-R", "a-w", sandbox.home]);
    }
    const list = await sandbox.cli(["ls", "--all"]);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^readable\s+stopped \(verified\)/m);
    const show = await sandbox.cli(["show", "readable"]);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, /status: stopped: verified/);
  } finally {
    if (mounted) execFileSync("umount", [sandbox.home]);
    else execFileSync("chmod", ["-R", "u+w", sandbox.home]);
    await sandbox.cleanup();
  }
});

test("a corrupt database names its file, exit 2, no stack trace", async () => {
  const sandbox = await createSandbox({ "README.md": "# repo\n" });
  try {
    await runQuickLoop(sandbox, "before");
    const path = join(sandbox.home, "loopwright.db");
    await writeFile(path, "this is not a database, it is a shopping list\n".repeat(200));
    for (const args of [
      ["ls", "--all"],
      ["show", "before"],
      ["run", join(sandbox.root, "before.yaml")],
    ]) {
      const result = await sandbox.cli(args);
      assert.equal(result.code, 2, `${args[0]}: ${result.stderr}`);
      assert.match(
        result.stderr,
        new RegExp(`^loopwright: ${path.replaceAll(".", "\\.")}: not a loopwright database`),
      );
      assert.doesNotMatch(result.stderr, /internal error|\n\s+at /);
    }
  } finally {
    await sandbox.cleanup();
  }
});

test("a database locked for longer than the bound names its file, exit 2", async () => {
  const sandbox = await createSandbox({ "README.md": "# repo\n" });
  try {
    await runQuickLoop(sandbox, "first");
    const path = join(sandbox.home, "loopwright.db");
    const holder = new DatabaseSync(path);
    holder.exec("BEGIN IMMEDIATE");
    try {
      const result = await sandbox.cli(
        ["run", await sandbox.spec(quickSpec("second"), join(sandbox.root, "second.yaml"))],
        {
          env: { LOOPWRIGHT_STORE_BUSY_MS: "1500" },
        },
      );
      assert.equal(result.code, 2, result.stderr + result.stdout);
      assert.match(
        result.stderr,
        new RegExp(`${path.replaceAll(".", "\\.")}: the database is locked by another process`),
      );
    } finally {
      holder.exec("ROLLBACK");
      holder.close();
    }
  } finally {
    await sandbox.cleanup();
  }
});
