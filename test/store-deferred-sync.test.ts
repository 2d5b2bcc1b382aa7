/**
 * Appends with `deferSync` skip the flush to the disk but nothing else: the event is seen at once by
 * another connection, survives the death of the process (SIGKILL right after the append), and the next
 * synced append flushes it with its own. The flushes themselves are counted with strace (where it is
 * installed): deferred appends make none, a synced one exactly its own.
 */
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { truncateSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { openSqliteStore } from "../src/store/sqlite-store.ts";

const execFileAsync = promisify(execFile);
const storeModule = new URL("../src/store/sqlite-store.ts", import.meta.url).href;
const hasStrace = spawnSync("strace", ["-V"]).status === 0 && process.platform === "linux";

let temporary: string;
before(async () => {
  temporary = await mkdtemp(join(tmpdir(), "loopwright-deferred-sync-"));
});
after(() => rm(temporary, { recursive: true, force: true }));

/** A store with one loop in a file of its own. */
async function storeWithLoop(name: string) {
  const path = join(temporary, `${name}.db`);
  const store = openSqliteStore(path);
  await store.createLoop({ id: "loop", name: "loop", repoRoot: "/repo", specPath: "/spec", spec: {} });
  return { path, store };
}

test("a deferred append is read back at once by another connection, in order with synced ones", async () => {
  const { path, store } = await storeWithLoop("visible");
  const reader = openSqliteStore(path);
  try {
    await store.appendEvent("loop", "first", { n: 1 }, 1, { deferSync: true });
    assert.deepEqual(
      (await reader.readEvents("loop")).map((event) => event.type),
      ["first"],
    );
    await store.appendEvent("loop", "second", { n: 2 });
    await store.appendEvent("loop", "third", { n: 3 }, 1, { deferSync: true });
    assert.deepEqual(
      (await reader.readEvents("loop")).map((event) => [event.seq, event.type]),
      [
        [1, "first"],
        [2, "second"],
        [3, "third"],
      ],
    );
  } finally {
    await store.close();
    await reader.close();
  }
});

test("a deferred append survives the death of the process right after it", async () => {
  const { path, store } = await storeWithLoop("killed");
  await store.close();
  const script = `
    const { openSqliteStore } = await import(${JSON.stringify(storeModule)});
    const store = openSqliteStore(${JSON.stringify(path)});
    await store.appendEvent("loop", "deferred", { n: 1 }, 1, { deferSync: true });
    process.kill(process.pid, "SIGKILL");
  `;
  await assert.rejects(execFileAsync(process.execPath, ["--input-type=module", "-e", script]), {
    signal: "SIGKILL",
  });
  const reopened = openSqliteStore(path);
  try {
    assert.deepEqual(
      (await reopened.readEvents("loop")).map((event) => event.type),
      ["deferred"],
    );
  } finally {
    await reopened.close();
  }
});

test("deferred appends flush nothing; the next synced append flushes them, and later writes are synced again", {
  skip: hasStrace ? false : "strace is not installed",
}, async () => {
  const { path, store } = await storeWithLoop("flushes");
  await store.close();
  // Each marker write to stderr separates the phases in strace's log.
  const script = `
      const { openSqliteStore } = await import(${JSON.stringify(storeModule)});
      const { writeSync } = await import("node:fs");
      const store = openSqliteStore(${JSON.stringify(path)});
      // The first write of a fresh WAL file creates it (flushing the file and its folder) whatever the mode.
      await store.appendEvent("loop", "synced", {});
      writeSync(2, "PHASE deferred\\n");
      for (let n = 0; n < 5; n++) await store.appendEvent("loop", "deferred", { n }, 1, { deferSync: true });
      writeSync(2, "PHASE synced\\n");
      await store.appendEvent("loop", "synced", {});
      writeSync(2, "PHASE after\\n");
      await store.appendEvent("loop", "synced-again", {});
      writeSync(2, "PHASE end\\n");
    `;
  const { stderr } = await execFileAsync("strace", [
    "-f",
    "-qq",
    "-e",
    "trace=fsync,fdatasync,write",
    "-e",
    "signal=none",
    process.execPath,
    "--input-type=module",
    "-e",
    script,
  ]);
  const flushes: Record<string, number> = {};
  let phase = "open";
  for (const line of stderr.split("\n")) {
    const marker = /PHASE (\w+)/.exec(line);
    if (marker && line.includes("write(2")) phase = marker[1];
    else if (/\b(fsync|fdatasync)\(/.test(line)) flushes[phase] = (flushes[phase] ?? 0) + 1;
  }
  assert.equal(flushes.deferred ?? 0, 0, stderr);
  assert.ok((flushes.synced ?? 0) >= 1, stderr);
  assert.ok((flushes.after ?? 0) >= 1, stderr);
  const reopened = openSqliteStore(path);
  try {
    assert.equal((await reopened.readEvents("loop")).length, 8);
  } finally {
    await reopened.close();
  }
});

test("after a power cut undoes deferred appends, no id a reader saw is handed out again", async () => {
  const { path, store } = await storeWithLoop("power-cut");
  await store.close();
  // The child appends once (flushed), notes the WAL's size (what a power cut leaves at worst), then
  // appends twice without a flush, says the ids a live feed would have sent, and dies.
  const script = `
    const { openSqliteStore } = await import(${JSON.stringify(storeModule)});
    const { statSync, writeSync } = await import("node:fs");
    const store = openSqliteStore(${JSON.stringify(path)});
    await store.appendEvent("loop", "flushed", {});
    const flushedSize = statSync(${JSON.stringify(`${path}-wal`)}).size;
    const ids = [];
    for (let n = 0; n < 2; n++) ids.push((await store.appendEvent("loop", "deferred", { n }, 1, { deferSync: true })).id);
    writeSync(1, JSON.stringify({ flushedSize, ids }) + "\\n");
    process.kill(process.pid, "SIGKILL");
  `;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  assert.equal(child.signal, "SIGKILL", child.stderr);
  const { flushedSize, ids } = JSON.parse(child.stdout) as { flushedSize: number; ids: number[] };
  // The power cut: what was not flushed never reached the disk, and the machine booted again.
  truncateSync(`${path}-wal`, flushedSize);
  rebootedSince(path);
  const reopened = openSqliteStore(path);
  try {
    assert.deepEqual(
      (await reopened.readEvents("loop")).map((event) => event.type),
      ["flushed"],
    );
    const next = await reopened.appendEvent("loop", "after-restart", {});
    assert.ok(next.id > Math.max(...ids), `id ${next.id} was already sent as one of ${ids.join(", ")}`);
    const deferred = await reopened.appendEvent("loop", "deferred-after-restart", {}, 1, { deferSync: true });
    assert.ok(deferred.id > next.id);
  } finally {
    await reopened.close();
  }
});

/** As if the machine booted again since the store last reserved ids: its recorded boot is another. */
function rebootedSince(path: string): void {
  const database = new DatabaseSync(path);
  try {
    database.prepare("UPDATE store_facts SET value = 'an earlier boot' WHERE name = 'boot'").run();
  } finally {
    database.close();
  }
}

test("within one boot ids stay dense; a process's first append after a reboot is flushed and reserves ids", async () => {
  const { path, store } = await storeWithLoop("dense");
  const first = await store.appendEvent("loop", "a", {}, 1, { deferSync: true });
  const second = await store.appendEvent("loop", "b", {}, 1, { deferSync: true });
  assert.equal(second.id, first.id + 1);
  await store.close();
  const again = openSqliteStore(path);
  const third = await again.appendEvent("loop", "c", {});
  assert.equal(third.id, second.id + 1);
  await again.close();
  rebootedSince(path);
  const afterReboot = openSqliteStore(path);
  try {
    const fourth = await afterReboot.appendEvent("loop", "d", {}, 1, { deferSync: true });
    assert.ok(fourth.id > third.id + 1_000_000, `id ${fourth.id} after ${third.id}: no reservation`);
  } finally {
    await afterReboot.close();
  }
});

test("a process's first append after a reboot is flushed even when deferred: it carries the id reservation", async () => {
  const { path, store } = await storeWithLoop("first-append");
  await store.appendEvent("loop", "before", {});
  await store.close();
  rebootedSince(path);
  const script = `
    const { openSqliteStore } = await import(${JSON.stringify(storeModule)});
    const { statSync, writeSync } = await import("node:fs");
    const store = openSqliteStore(${JSON.stringify(path)});
    const first = await store.appendEvent("loop", "first", {}, 1, { deferSync: true });
    writeSync(1, JSON.stringify({ size: statSync(${JSON.stringify(`${path}-wal`)}).size, id: first.id }) + "\\n");
    process.kill(process.pid, "SIGKILL");
  `;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  assert.equal(child.signal, "SIGKILL", child.stderr);
  const { size, id } = JSON.parse(child.stdout) as { size: number; id: number };
  truncateSync(`${path}-wal`, size);
  const reopened = openSqliteStore(path);
  try {
    const events = await reopened.readEvents("loop");
    assert.deepEqual(
      events.map((event) => [event.type, event.id]),
      [
        ["before", 1],
        ["first", id],
      ],
    );
  } finally {
    await reopened.close();
  }
});

test("a store's first append in a boot is flushed even when deferred: the boot it records must be durable", {
  skip: hasStrace ? false : "strace is not installed",
}, async () => {
  // A new store records no boot yet: were its first (deferred) append lost to a power cut, the boot
  // would be missing again, nothing would be reserved, and the lost ids would be handed out again.
  const { path, store } = await storeWithLoop("records-boot");
  await store.close();
  const script = `
      const { openSqliteStore } = await import(${JSON.stringify(storeModule)});
      const { writeSync } = await import("node:fs");
      const store = openSqliteStore(${JSON.stringify(path)});
      // A write that is no append creates the WAL file (whose creation is flushed whatever the mode).
      await store.createLoop({ id: "other", name: "other", repoRoot: "/repo", specPath: "/spec", spec: {} });
      writeSync(2, "PHASE first\\n");
      await store.appendEvent("loop", "deferred", {}, 1, { deferSync: true });
      writeSync(2, "PHASE second\\n");
      await store.appendEvent("loop", "deferred", {}, 1, { deferSync: true });
      writeSync(2, "PHASE end\\n");
    `;
  const { stderr } = await execFileAsync("strace", [
    "-f",
    "-qq",
    "-e",
    "trace=fsync,fdatasync,write",
    "-e",
    "signal=none",
    process.execPath,
    "--input-type=module",
    "-e",
    script,
  ]);
  const flushes: Record<string, number> = {};
  let phase = "open";
  for (const line of stderr.split("\n")) {
    const marker = /PHASE (\w+)/.exec(line);
    if (marker && line.includes("write(2")) phase = marker[1];
    else if (/\b(fsync|fdatasync)\(/.test(line)) flushes[phase] = (flushes[phase] ?? 0) + 1;
  }
  assert.ok((flushes.first ?? 0) >= 1, stderr);
  assert.equal(flushes.second ?? 0, 0, stderr);
});

test("a loop created with its first event: both in one transaction, the boot recorded, ids reserved after a reboot", async () => {
  const path = join(temporary, "with-event.db");
  const store = openSqliteStore(path);
  const loop = { id: "first", name: "first", repoRoot: "/repo", specPath: "/spec", spec: { a: 1 } };
  try {
    const { loop: record, event } = await store.createLoopWithEvent(loop, {
      type: "loop_created",
      data: { base: "x" },
      version: 2,
    });
    assert.equal(record.id, "first");
    assert.deepEqual(await store.findLoop("first"), record);
    assert.deepEqual(await store.readEvents("first"), [event]);
    assert.equal(event.seq, 1);
    assert.equal(event.version, 2);
    assert.deepEqual(event.data, { base: "x" });
    // The store's first append recorded the boot, as `appendEvent`'s does.
    const facts = new DatabaseSync(path, { readOnly: true });
    const boot = facts.prepare("SELECT value FROM store_facts WHERE name = 'boot'").get();
    facts.close();
    assert.ok(boot, "no boot recorded");
    // A name taken in the repository: neither the loop nor an event is written.
    await assert.rejects(
      store.createLoopWithEvent({ ...loop, id: "second" }, { type: "loop_created", data: {} }),
      /already exists/,
    );
    assert.equal(await store.findLoop("second"), undefined);
    assert.deepEqual(await store.readEvents("second"), []);
  } finally {
    await store.close();
  }
  rebootedSince(path);
  const afterReboot = openSqliteStore(path);
  try {
    const { event } = await afterReboot.createLoopWithEvent(
      { ...loop, id: "third", name: "third" },
      { type: "loop_created", data: {} },
    );
    assert.ok(event.id > 1_000_000, `id ${event.id}: no reservation after the reboot`);
  } finally {
    await afterReboot.close();
  }
});

test("a loop created with its first event flushes the disk as one synced append does, not as two", {
  skip: hasStrace ? false : "strace is not installed",
}, async () => {
  const { path, store } = await storeWithLoop("one-flush");
  await store.close();
  const script = `
      const { openSqliteStore } = await import(${JSON.stringify(storeModule)});
      const { writeSync } = await import("node:fs");
      const store = openSqliteStore(${JSON.stringify(path)});
      // The first write of a fresh WAL file creates it (flushing the file and its folder) whatever the mode.
      await store.appendEvent("loop", "synced", {});
      const loop = (id) => ({ id, name: id, repoRoot: "/repo", specPath: "/spec", spec: {} });
      writeSync(2, "PHASE two\\n");
      await store.createLoop(loop("a"));
      await store.appendEvent("a", "loop_created", {});
      writeSync(2, "PHASE one\\n");
      await store.createLoopWithEvent(loop("b"), { type: "loop_created", data: {} });
      writeSync(2, "PHASE end\\n");
    `;
  const { stderr } = await execFileAsync("strace", [
    "-f",
    "-qq",
    "-e",
    "trace=fsync,fdatasync,write",
    "-e",
    "signal=none",
    process.execPath,
    "--input-type=module",
    "-e",
    script,
  ]);
  const flushes: Record<string, number> = {};
  let phase = "open";
  for (const line of stderr.split("\n")) {
    const marker = /PHASE (\w+)/.exec(line);
    if (marker && line.includes("write(2")) phase = marker[1];
    else if (/\b(fsync|fdatasync)\(/.test(line)) flushes[phase] = (flushes[phase] ?? 0) + 1;
  }
  assert.ok((flushes.one ?? 0) >= 1, stderr);
  assert.equal(flushes.two, 2 * (flushes.one ?? 0), stderr);
});
