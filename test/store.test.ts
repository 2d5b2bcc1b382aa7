import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, test } from "node:test";
import type { LockOwner } from "../src/core/lock-owner.ts";
import { LoopNotFoundError, UsageError } from "../src/errors.ts";
import { homeLayout } from "../src/paths.ts";
import {
  currentLockOwner,
  isLockOwnerAlive,
  isProcessAlive,
  processStamp,
  processStartTime,
} from "../src/process/liveness.ts";
import { openStore } from "../src/store/open-store.ts";
import { openSqliteStore, schemaVersion } from "../src/store/sqlite-store.ts";
import type { Store } from "../src/store/store.ts";

const sqliteStoreModule = new URL("../src/store/sqlite-store.ts", import.meta.url).href;
const livenessModule = new URL("../src/process/liveness.ts", import.meta.url).href;

let temporary: string;
let counter = 0;

before(async () => {
  temporary = await mkdtemp(join(tmpdir(), "loopwright-store-"));
});
after(async () => {
  await rm(temporary, { recursive: true, force: true });
});

/** A fresh database file of its own for each test. */
function freshDatabasePath(): string {
  counter += 1;
  return join(temporary, `store-${counter}.db`);
}

async function withStore(work: (store: Store, path: string) => Promise<void>): Promise<void> {
  const path = freshDatabasePath();
  const store = openSqliteStore(path);
  try {
    await work(store, path);
  } finally {
    await store.close();
  }
}

function loop(id: string, name: string, repoRoot = "/repositories/app") {
  return { id, name, repoRoot, specPath: `${repoRoot}/loop.yaml`, spec: { goal: `goal of ${name}` } };
}

interface RunningChild {
  child: ChildProcess;
  /** Resolves with the exit code and signal; created at spawn so an early exit is not missed. */
  exited: Promise<[number | null, NodeJS.Signals | null]>;
}

/** Starts `node -e script` (an ES module) and resolves once it printed its first line of output. */
async function startChild(script: string): Promise<RunningChild & { firstLine: string }> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const firstLine = await Promise.race([
    once(lines, "line").then(([line]) => line as string),
    exited.then(([code, signal]) => {
      throw new Error(`child exited (${code ?? signal}) before printing a line`);
    }),
  ]);
  return { child, exited, firstLine };
}

async function runChild(script: string): Promise<{ code: number | null; signal: string | null }> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: "inherit" });
  const [code, signal] = await once(child, "exit");
  return { code, signal };
}

function pidOf(child: ChildProcess): number {
  assert.ok(child.pid !== undefined, "the child process started");
  return child.pid;
}

async function killAndWait({ child, exited }: RunningChild): Promise<void> {
  child.kill("SIGKILL");
  await exited;
}

describe("events", () => {
  test("round-trip in order with their data intact", async () => {
    await withStore(async (store) => {
      await store.createLoop(loop("loop-1", "tests"));
      const data = { gate: "lint", exitCode: 1, tail: "ünïcode ✓\nline 2", nested: { list: [1, null, "x"] } };
      const first = await store.appendEvent("loop-1", "loop_started", { goal: "green" });
      const second = await store.appendEvent("loop-1", "gate_ended", data, 2);
      assert.equal(first.seq, 1);
      assert.equal(second.seq, 2);
      const events = await store.readEvents("loop-1");
      assert.deepEqual(
        events.map((event) => [event.seq, event.type, event.version]),
        [
          [1, "loop_started", 1],
          [2, "gate_ended", 2],
        ],
      );
      assert.deepEqual(events[1].data, data);
      assert.deepEqual(events[1], second);
      assert.ok(!Number.isNaN(Date.parse(events[0].at)));
    });
  });

  test("readEvents(afterSeq) returns only the later events; sequences are per loop", async () => {
    await withStore(async (store) => {
      await store.createLoop(loop("loop-a", "a"));
      await store.createLoop(loop("loop-b", "b"));
      for (let index = 0; index < 5; index++) await store.appendEvent("loop-a", "tick", { index });
      await store.appendEvent("loop-b", "tick", { index: 0 });
      const later = await store.readEvents("loop-a", 3);
      assert.deepEqual(
        later.map((event) => [event.seq, event.data.index]),
        [
          [4, 3],
          [5, 4],
        ],
      );
      assert.deepEqual(await store.readEvents("loop-a", 5), []);
      assert.deepEqual(
        (await store.readEvents("loop-b")).map((event) => event.seq),
        [1],
      );
    });
  });

  test("appending to an unknown loop is refused", async () => {
    await withStore(async (store) => {
      await assert.rejects(store.appendEvent("missing", "tick", {}), LoopNotFoundError);
    });
  });

  test("two store instances on the same file never duplicate or skip a seq", async () => {
    const path = freshDatabasePath();
    const first = openSqliteStore(path);
    const second = openSqliteStore(path);
    try {
      await first.createLoop(loop("shared", "shared"));
      const appended = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          (index % 2 === 0 ? first : second).appendEvent("shared", "tick", { index }),
        ),
      );
      assert.deepEqual(
        appended.map((event) => event.seq),
        Array.from({ length: 20 }, (_, index) => index + 1),
      );
      assert.deepEqual(
        (await second.readEvents("shared")).map((event) => event.data.index),
        Array.from({ length: 20 }, (_, index) => index),
      );
    } finally {
      await first.close();
      await second.close();
    }
  });

  test("a second process appending at the same time never duplicates or skips a seq", async () => {
    await withStore(async (store, path) => {
      await store.createLoop(loop("busy", "busy"));
      const count = 100;
      const { exited } = await startChild(`
        import { openSqliteStore } from ${JSON.stringify(sqliteStoreModule)};
        const store = openSqliteStore(${JSON.stringify(path)});
        console.log("ready");
        for (let index = 0; index < ${count}; index++) {
          await store.appendEvent("busy", "child", { index });
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        await store.close();
      `);
      // Both writers pause between appends so that their transactions interleave.
      for (let index = 0; index < count; index++) {
        await store.appendEvent("busy", "parent", { index });
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      const [code] = await exited;
      assert.equal(code, 0);

      const events = await store.readEvents("busy");
      assert.deepEqual(
        events.map((event) => event.seq),
        Array.from({ length: 2 * count }, (_, index) => index + 1),
      );
      for (const writer of ["parent", "child"]) {
        const indexes = events.filter((event) => event.type === writer).map((event) => event.data.index);
        assert.deepEqual(
          indexes,
          Array.from({ length: count }, (_, index) => index),
          `${writer} events`,
        );
      }
    });
  });

  test("an appended event survives the process being killed with SIGKILL right after", async () => {
    const path = freshDatabasePath();
    const setup = openSqliteStore(path);
    await setup.createLoop(loop("durable", "durable"));
    await setup.close();

    const result = await runChild(`
      import { openSqliteStore } from ${JSON.stringify(sqliteStoreModule)};
      const store = openSqliteStore(${JSON.stringify(path)});
      await store.appendEvent("durable", "iteration_ended", { iteration: 7, verdict: "green" });
      process.kill(process.pid, "SIGKILL");
    `);
    assert.equal(result.signal, "SIGKILL");

    const reopened = openSqliteStore(path);
    try {
      const events = await reopened.readEvents("durable");
      assert.deepEqual(
        events.map((event) => [event.seq, event.type, event.data]),
        [[1, "iteration_ended", { iteration: 7, verdict: "green" }]],
      );
    } finally {
      await reopened.close();
    }
  });
});

describe("loops", () => {
  test("a duplicate name in the same repository is refused, allowed in another", async () => {
    await withStore(async (store) => {
      const created = await store.createLoop(loop("loop-1", "fix-tests", "/repositories/one"));
      assert.equal(created.name, "fix-tests");
      assert.ok(!Number.isNaN(Date.parse(created.createdAt)));
      await assert.rejects(store.createLoop(loop("loop-2", "fix-tests", "/repositories/one")), (error) => {
        assert.ok(error instanceof UsageError);
        assert.match(error.message, /already exists in \/repositories\/one/);
        assert.doesNotMatch(error.message, /\n/);
        return true;
      });
      await store.createLoop(loop("loop-3", "fix-tests", "/repositories/two"));
      assert.equal((await store.listLoops()).length, 2);
    });
  });

  test("findLoop by id, by name within a repository, and not on an ambiguous name", async () => {
    await withStore(async (store) => {
      await store.createLoop(loop("id-one", "lint", "/repositories/one"));
      await store.createLoop(loop("id-two", "lint", "/repositories/two"));
      await store.createLoop(loop("id-three", "docs", "/repositories/two"));

      const byId = await store.findLoop("id-one");
      assert.equal(byId?.repoRoot, "/repositories/one");
      assert.deepEqual(byId?.spec, { goal: "goal of lint" });
      assert.equal((await store.findLoop("id-one", "/repositories/two"))?.id, "id-one");
      assert.equal((await store.findLoop("lint", "/repositories/two"))?.id, "id-two");
      assert.equal((await store.findLoop("docs"))?.id, "id-three");
      assert.equal(await store.findLoop("lint"), undefined);
      assert.equal(await store.findLoop("docs", "/repositories/one"), undefined);
      assert.equal(await store.findLoop("nothing"), undefined);
    });
  });

  test("listLoops is newest first and filters by repository", async () => {
    await withStore(async (store) => {
      await store.createLoop(loop("first", "a", "/repositories/one"));
      await store.createLoop(loop("second", "b", "/repositories/two"));
      await store.createLoop(loop("third", "c", "/repositories/one"));
      assert.deepEqual(
        (await store.listLoops()).map((record) => record.id),
        ["third", "second", "first"],
      );
      assert.deepEqual(
        (await store.listLoops("/repositories/one")).map((record) => record.id),
        ["third", "first"],
      );
    });
  });

  test("deleteLoop removes the loop, its events and its lock", async () => {
    await withStore(async (store) => {
      await store.createLoop(loop("doomed", "doomed"));
      await store.appendEvent("doomed", "tick", {});
      assert.deepEqual(await store.acquireLock("doomed", currentLockOwner("run-1")), { acquired: true });
      await store.deleteLoop("doomed");

      assert.equal(await store.findLoop("doomed"), undefined);
      assert.deepEqual(await store.readEvents("doomed"), []);
      assert.equal(await store.lockHolder("doomed"), undefined);
      // The name is free again, and the new loop starts its own timeline and lock afresh.
      await store.createLoop(loop("doomed", "doomed"));
      assert.equal((await store.appendEvent("doomed", "tick", {})).seq, 1);
      assert.equal(await store.lockHolder("doomed"), undefined);
    });
  });
});

describe("locks", () => {
  test("a lock held by a live process is refused; once that process is killed it is taken over", async () => {
    await withStore(async (store, path) => {
      await store.createLoop(loop("locked", "locked"));
      const running = await startChild(`
        import { openSqliteStore } from ${JSON.stringify(sqliteStoreModule)};
        import { currentLockOwner } from ${JSON.stringify(livenessModule)};
        const store = openSqliteStore(${JSON.stringify(path)});
        const result = await store.acquireLock("locked", currentLockOwner("child-run"));
        console.log(JSON.stringify(result));
        setInterval(() => {}, 60_000);
      `);
      try {
        assert.deepEqual(JSON.parse(running.firstLine), { acquired: true });
        const mine = currentLockOwner("parent-run");

        const refused = await store.acquireLock("locked", mine);
        assert.equal(refused.acquired, false);
        assert.equal(!refused.acquired && refused.holder.pid, running.child.pid);
        assert.equal(!refused.acquired && refused.holder.runId, "child-run");
        assert.equal((await store.lockHolder("locked"))?.runId, "child-run");

        await killAndWait(running);
        assert.equal(await store.lockHolder("locked"), undefined);
        assert.deepEqual(await store.acquireLock("locked", mine), { acquired: true });
        assert.deepEqual(await store.lockHolder("locked"), mine);
      } finally {
        await killAndWait(running);
      }
    });
  });

  test("a lock with a live pid but another start time (a reused pid) is taken over", async () => {
    await withStore(async (store) => {
      await store.createLoop(loop("reused", "reused"));
      const stale: LockOwner = { ...currentLockOwner("old-run"), processStart: "1" };
      assert.deepEqual(await store.acquireLock("reused", stale), { acquired: true });
      assert.equal(await store.lockHolder("reused"), undefined);
      assert.deepEqual(await store.acquireLock("reused", currentLockOwner("new-run")), { acquired: true });
      assert.equal((await store.lockHolder("reused"))?.runId, "new-run");
    });
  });

  test("a holder on another host is treated as alive", async () => {
    await withStore(async (store) => {
      await store.createLoop(loop("remote", "remote"));
      const remote: LockOwner = {
        runId: "remote-run",
        pid: 2 ** 22 + 1,
        host: `not-${hostname()}`,
        processStart: "5",
      };
      assert.deepEqual(await store.acquireLock("remote", remote), { acquired: true });
      assert.deepEqual(await store.acquireLock("remote", currentLockOwner("local-run")), {
        acquired: false,
        holder: remote,
      });
    });
  });

  test("the holder may re-acquire; only the holder can release", async () => {
    await withStore(async (store) => {
      await store.createLoop(loop("release", "release"));
      const holder = currentLockOwner("holder-run");
      assert.deepEqual(await store.acquireLock("release", holder), { acquired: true });
      assert.deepEqual(await store.acquireLock("release", holder), { acquired: true });

      await store.releaseLock("release", "someone-else");
      assert.equal((await store.lockHolder("release"))?.runId, "holder-run");
      const other = await store.acquireLock("release", currentLockOwner("other-run"));
      assert.equal(other.acquired, false);

      await store.releaseLock("release", "holder-run");
      assert.equal(await store.lockHolder("release"), undefined);
      assert.deepEqual(await store.acquireLock("release", currentLockOwner("other-run")), { acquired: true });
    });
  });

  test("locking an unknown loop is refused", async () => {
    await withStore(async (store) => {
      await assert.rejects(store.acquireLock("missing", currentLockOwner("run")), LoopNotFoundError);
    });
  });
});

describe("schema and opening", () => {
  test("openStore creates the home folder and the database in it; reopening keeps the data", async () => {
    const home = join(temporary, "home", "nested");
    const store = await openStore(home);
    await store.createLoop(loop("kept", "kept"));
    await store.appendEvent("kept", "tick", { n: 1 });
    await store.close();
    await store.close();

    const reopened = await openStore(home);
    try {
      assert.equal((await reopened.readEvents("kept")).length, 1);
    } finally {
      await reopened.close();
    }
    const database = new DatabaseSync(homeLayout(home).database);
    try {
      const versions = database.prepare("SELECT version FROM schema_version ORDER BY version").all();
      assert.deepEqual(
        versions.map((row) => row.version),
        Array.from({ length: schemaVersion }, (_, index) => index + 1),
      );
      assert.equal(database.prepare("PRAGMA journal_mode").get()?.journal_mode, "wal");
    } finally {
      database.close();
    }
  });

  test("a database from a newer loopwright is refused with a UsageError", async () => {
    const path = freshDatabasePath();
    await openSqliteStore(path).close();
    const database = new DatabaseSync(path);
    database
      .prepare("INSERT INTO schema_version (version, applied_at) VALUES (?, ?)")
      .run(schemaVersion + 1, "x");
    database.close();
    assert.throws(
      () => openSqliteStore(path),
      (error) => error instanceof UsageError && /newer/.test(error.message),
    );
  });
});

describe("liveness", () => {
  test("this process is alive with a stable start time; a killed one is not", async () => {
    const own = processStartTime(process.pid);
    assert.ok(own !== undefined);
    assert.equal(processStartTime(process.pid), own);
    assert.equal(isProcessAlive(process.pid), true);
    assert.equal(isLockOwnerAlive(currentLockOwner("me")), true);

    const running = await startChild(`console.log("up"); setInterval(() => {}, 60_000);`);
    const pid = pidOf(running.child);
    const processStart = processStamp(pid);
    assert.ok(processStart !== "");
    const owner: LockOwner = { runId: "child", pid, host: hostname(), processStart };
    assert.equal(isLockOwnerAlive(owner), true);
    await killAndWait(running);
    assert.equal(isProcessAlive(pid), false);
    assert.equal(processStartTime(pid), undefined);
    assert.equal(isLockOwnerAlive(owner), false);
  });

  test("the start time is read past a command name holding spaces and parentheses", {
    skip: process.platform !== "linux" && "reads /proc",
  }, async () => {
    const oddName = join(temporary, "x) y (z");
    // sleep keeps the command name it was started as (node renames its main thread, which would race).
    await symlink("/bin/sleep", oddName);
    const child = spawn(oddName, ["60"], { stdio: "ignore" });
    const exited = once(child, "exit") as RunningChild["exited"];
    try {
      await once(child, "spawn");
      const pid = pidOf(child);
      // "spawn" is emitted once exec succeeded, so the kernel already has the new command name.
      const stat = await readFile(`/proc/${pid}/stat`, "utf8");
      assert.ok(stat.includes("(x) y (z)"), stat);
      const childStart = processStartTime(pid);
      assert.match(childStart ?? "", /^\d+$/);
      // The child started after this process; a parser that split the name would read another field.
      assert.ok(Number(childStart) >= Number(processStartTime(process.pid)), `${childStart} in ${stat}`);
      assert.equal(isProcessAlive(pid), true);
    } finally {
      await killAndWait({ child, exited });
    }
  });
});
