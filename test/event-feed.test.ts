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
