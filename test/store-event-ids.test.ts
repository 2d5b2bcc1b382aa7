import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, test } from "node:test";
import { openSqliteStore, schemaVersion } from "../src/store/sqlite-store.ts";

let temporary: string;
let counter = 0;
before(async () => {
  temporary = await mkdtemp(join(tmpdir(), "loopwright-event-ids-"));
});
after(async () => {
  await rm(temporary, { recursive: true, force: true });
});

function freshPath(): string {
  counter += 1;
  return join(temporary, `store-${counter}.db`);
}

function loop(id: string) {
  return { id, name: id, repoRoot: "/repositories/app", specPath: "/repositories/app/loop.yaml", spec: {} };
}

test("event ids are global, strictly increasing across loops, and readEventsAfter pages by them", async () => {
  const store = openSqliteStore(freshPath());
  try {
    await store.createLoop(loop("a"));
    await store.createLoop(loop("b"));
    const appended = [];
    for (let index = 0; index < 6; index++) {
      appended.push(await store.appendEvent(index % 2 ? "b" : "a", "note_added", { index }));
    }
    const ids = appended.map((event) => event.id);
    assert.deepEqual(
      ids,
      [...ids].sort((left, right) => left - right),
    );
    assert.equal(new Set(ids).size, 6);
    assert.deepEqual(
      appended.map((event) => event.seq),
      [1, 1, 2, 2, 3, 3],
    );
    const read = await store.readEvents("a");
    assert.deepEqual(
      read.map((event) => event.id),
      [ids[0], ids[2], ids[4]],
    );
    // Paging over every loop, two at a time, sees each event exactly once and in order.
    const seen: number[] = [];
    for (let last = 0; ; ) {
      const page = await store.readEventsAfter(last, 2);
      if (page.length === 0) break;
      assert.ok(page.length <= 2);
      seen.push(...page.map((event) => event.id));
      last = page.at(-1)?.id ?? last;
    }
    assert.deepEqual(seen, ids);
    const onlyB = await store.readEventsAfter(ids[1], 10, "b");
    assert.deepEqual(
      onlyB.map((event) => event.data.index),
      [3, 5],
    );
    assert.equal(await store.lastEventId(), ids[5]);
  } finally {
    await store.close();
  }
});

test("an id is never reused, not even after the loop holding the highest ids is deleted", async () => {
  const path = freshPath();
  let store = openSqliteStore(path);
  await store.createLoop(loop("a"));
  await store.createLoop(loop("b"));
  await store.appendEvent("a", "note_added", {});
  const highest = await store.appendEvent("b", "note_added", {});
  await store.deleteLoop("b");
  assert.equal(await store.lastEventId(), highest.id);
  await store.close();
  // Reopened by another process later: the counter survives.
  store = openSqliteStore(path);
  try {
    const next = await store.appendEvent("a", "note_added", {});
    assert.ok(next.id > highest.id, `${next.id} > ${highest.id}`);
    await store.createLoop(loop("b"));
    const again = await store.appendEvent("b", "note_added", {});
    assert.equal(again.seq, 1);
    assert.ok(again.id > next.id);
  } finally {
    await store.close();
  }
});

test("a database of schema 1 is migrated: its events are numbered in the order they were appended", async () => {
  const path = freshPath();
  const old = new DatabaseSync(path);
  old.exec(`
    CREATE TABLE loops (id TEXT PRIMARY KEY, name TEXT NOT NULL, repo_root TEXT NOT NULL,
      spec_path TEXT NOT NULL, spec TEXT NOT NULL, created_at TEXT NOT NULL, UNIQUE (repo_root, name));
    CREATE TABLE events (loop_id TEXT NOT NULL REFERENCES loops (id) ON DELETE CASCADE,
      seq INTEGER NOT NULL, type TEXT NOT NULL, version INTEGER NOT NULL, at TEXT NOT NULL,
      data TEXT NOT NULL, PRIMARY KEY (loop_id, seq));
    CREATE TABLE locks (loop_id TEXT PRIMARY KEY REFERENCES loops (id) ON DELETE CASCADE,
      run_id TEXT NOT NULL, pid INTEGER NOT NULL, host TEXT NOT NULL, process_start TEXT NOT NULL,
      acquired_at TEXT NOT NULL);
    CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL);
    INSERT INTO schema_version VALUES (1, '2026-01-01T00:00:00.000Z');
    INSERT INTO loops VALUES ('b', 'b', '/r', '/r/l.yaml', '{}', '2026-01-01T00:00:00.000Z');
    INSERT INTO loops VALUES ('a', 'a', '/r', '/r/l.yaml', '{}', '2026-01-01T00:00:01.000Z');
    INSERT INTO events VALUES ('b', 1, 'note_added', 1, '2026-01-01T00:00:00.000Z', '{"n":1}');
    INSERT INTO events VALUES ('a', 1, 'note_added', 1, '2026-01-01T00:00:01.000Z', '{"n":2}');
    INSERT INTO events VALUES ('b', 2, 'note_added', 1, '2026-01-01T00:00:02.000Z', 'not json');
  `);
  old.close();
  const store = openSqliteStore(path);
  try {
    const all = await store.readEventsAfter(0, 100);
    assert.deepEqual(
      all.map((event) => [event.id, event.loopId, event.seq, event.data.n ?? event.damage]),
      [
        [1, "b", 1, 1],
        [2, "a", 1, 2],
        [3, "b", 2, "bad JSON"],
      ],
    );
    assert.equal(await store.lastEventId(), 3);
    const next = await store.appendEvent("a", "note_added", {});
    assert.deepEqual([next.id, next.seq], [4, 2]);
  } finally {
    await store.close();
  }
  const reopened = new DatabaseSync(path);
  const version = reopened.prepare("SELECT MAX(version) AS version FROM schema_version").get();
  reopened.close();
  assert.equal(Number(version?.version), schemaVersion);
});

test("two stores on one file appending at once: ids unique, and a reader resuming by id sees each once", async () => {
  const path = freshPath();
  const first = openSqliteStore(path);
  const second = openSqliteStore(path);
  try {
    await first.createLoop(loop("a"));
    await first.createLoop(loop("b"));
    const seen: number[] = [];
    let last = 0;
    let writing = true;
    const reader = (async () => {
      while (writing || (await second.readEventsAfter(last, 1)).length > 0) {
        for (const event of await second.readEventsAfter(last, 7)) {
          seen.push(event.id);
          last = event.id;
        }
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    const writes = [];
    for (let index = 0; index < 40; index++) {
      writes.push(first.appendEvent("a", "note_added", { index }));
      writes.push(second.appendEvent("b", "note_added", { index }));
    }
    const written = await Promise.all(writes);
    writing = false;
    await reader;
    const ids = written.map((event) => event.id).sort((left, right) => left - right);
    assert.equal(new Set(ids).size, 80);
    assert.deepEqual(seen, ids);
  } finally {
    await first.close();
    await second.close();
  }
});
