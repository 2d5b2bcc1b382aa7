/**
 * The live feed on a real SQLite file written by two store instances (as by two processes): subscribers
 * joining at any moment, from any id, receive every later event exactly once and in order.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { createEventFeed } from "../src/server/event-feed.ts";
import { openSqliteStore } from "../src/store/sqlite-store.ts";
import type { StoredEvent } from "../src/store/store.ts";
import { waitFor } from "./support/wait-for.ts";

test("subscribers joining while another writer appends get every event after their id, once, in order", async () => {
  const folder = await mkdtemp(join(tmpdir(), "loopwright-feed-"));
  const path = join(folder, "store.db");
  const reader = openSqliteStore(path);
  const writer = openSqliteStore(path);
  const feed = createEventFeed(reader, { pollMs: 5, batch: 7 });
  try {
    for (const id of ["a", "b"])
      await writer.createLoop({ id, name: id, repoRoot: "/r", specPath: "/r/l.yaml", spec: {} });
    const received: { after: number; loopId?: string; events: StoredEvent[] }[] = [];
    const unsubscribes: (() => void)[] = [];
    const join = async (loopId?: string) => {
      const after = Math.max(0, (await reader.lastEventId()) - 3);
      const entry = { after, loopId, events: [] as StoredEvent[] };
      received.push(entry);
      unsubscribes.push(feed.subscribe(after, (event) => void entry.events.push(event), loopId));
    };
    for (let index = 0; index < 120; index++) {
      await writer.appendEvent(index % 3 ? "a" : "b", "note_added", { index });
      if (index % 15 === 0) await join(index % 30 === 0 ? "b" : undefined);
      if (index % 10 === 0) feed.nudge();
      if (index % 7 === 0) await delay(3);
    }
    const all = await reader.readEventsAfter(0, 1000);
    await waitFor(
      () =>
        received.every(
          (entry) =>
            entry.events.length ===
            all.filter((event) => event.id > entry.after && (!entry.loopId || event.loopId === entry.loopId))
              .length,
        ),
      "every subscriber to catch up",
      10_000,
    );
    await delay(50);
    for (const entry of received) {
      const expected = all.filter(
        (event) => event.id > entry.after && (!entry.loopId || event.loopId === entry.loopId),
      );
      assert.deepEqual(
        entry.events.map((event) => event.id),
        expected.map((event) => event.id),
        `subscriber after ${entry.after} ${entry.loopId ?? "(all)"}`,
      );
    }
    for (const unsubscribe of unsubscribes) unsubscribe();
  } finally {
    feed.close();
    await reader.close();
    await writer.close();
    await rm(folder, { recursive: true, force: true });
  }
});

test("a store that fails for a while (busy) delays delivery but loses nothing", async () => {
  const folder = await mkdtemp(join(tmpdir(), "loopwright-feed-"));
  const store = openSqliteStore(join(folder, "store.db"));
  let failures = 6;
  const flaky = new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if ((property === "readEventsAfter" || property === "lastEventId") && failures-- > 0)
          return Promise.reject(new Error("database is locked"));
        return value.apply(target, args);
      };
    },
  });
  const feed = createEventFeed(flaky, { pollMs: 5, batch: 3 });
  try {
    await store.createLoop({ id: "a", name: "a", repoRoot: "/r", specPath: "/r/l.yaml", spec: {} });
    for (let index = 0; index < 5; index++) await store.appendEvent("a", "note_added", { index });
    const received: number[] = [];
    const unsubscribe = feed.subscribe(2, (event) => void received.push(event.id));
    for (let index = 5; index < 12; index++) await store.appendEvent("a", "note_added", { index });
    await waitFor(() => received.length === 10, "events 3 to 12", 10_000);
    await delay(30);
    assert.deepEqual(received, [3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    unsubscribe();
  } finally {
    feed.close();
    await store.close();
    await rm(folder, { recursive: true, force: true });
  }
});
