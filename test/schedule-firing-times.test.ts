import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ScheduleRule } from "../src/core/schedule-field.ts";
import { firingBranch, firingLoopName, wallClock } from "../src/service/schedules/firing-names.ts";
import { dueFirings, missedListLimit, nextFiring } from "../src/service/schedules/firing-times.ts";

const at = (iso: string) => new Date(iso);
const iso = (times: Date[]) => times.map((time) => time.toISOString());
/** The next `count` firing times after `from`, walking nextFiring as the service does. */
function walk(rule: ScheduleRule, anchor: Date, from: Date, count: number): Date[] {
  const times: Date[] = [];
  let after = from;
  for (let index = 0; index < count; index++) {
    const next = nextFiring(rule, anchor, after);
    assert.ok(next, "the rule fires again");
    times.push(next);
    after = next;
  }
  return times;
}
const paris = (cron: string): ScheduleRule => ({ cron, timezone: "Europe/Paris" });
const unused = at("2020-01-01T00:00:00Z");

describe("cron rules in Europe/Paris", () => {
  test("weekdays only: Friday's 03:00 is followed by Monday's, skipping the weekend", () => {
    const rule = paris("0 3 * * 1-5");
    // Friday 2026-12-04 03:00 Paris is 02:00 UTC (CET, +01:00).
    const times = walk(rule, unused, at("2026-12-04T02:00:00Z"), 3);
    assert.deepEqual(iso(times), [
      "2026-12-07T02:00:00.000Z",
      "2026-12-08T02:00:00.000Z",
      "2026-12-09T02:00:00.000Z",
    ]);
    assert.deepEqual(
      times.map((time) => wallClock(time, "Europe/Paris")),
      ["2026-12-07 03:00", "2026-12-08 03:00", "2026-12-09 03:00"],
    );
    // Saturday noon: nothing is due since Friday's firing.
    assert.deepEqual(dueFirings(rule, unused, at("2026-12-04T02:00:00Z"), at("2026-12-05T11:00:00Z")), {
      missed: [],
      missedUnlisted: false,
    });
  });

  test("03:00 stays 03:00 on the wall clock across both DST changes (23 h and 25 h apart in UTC)", () => {
    const rule = paris("0 3 * * *");
    const spring = walk(rule, unused, at("2026-03-27T12:00:00Z"), 3);
    assert.deepEqual(iso(spring), [
      "2026-03-28T02:00:00.000Z",
      "2026-03-29T01:00:00.000Z",
      "2026-03-30T01:00:00.000Z",
    ]);
    const autumn = walk(rule, unused, at("2026-10-24T12:00:00Z"), 2);
    assert.deepEqual(iso(autumn), ["2026-10-25T02:00:00.000Z", "2026-10-26T02:00:00.000Z"]);
    for (const time of [...spring, ...autumn]) assert.match(wallClock(time, "Europe/Paris"), / 03:00$/);
  });

  test("a fixed time inside the spring gap (02:30) fires once, at 03:00, that night", () => {
    const times = walk(paris("30 2 * * *"), unused, at("2026-03-28T12:00:00Z"), 2);
    assert.deepEqual(iso(times), ["2026-03-29T01:00:00.000Z", "2026-03-30T00:30:00.000Z"]);
    assert.equal(firingLoopName("nightly", times[0], paris("30 2 * * *")), "nightly-20260329-0300");
  });

  test("a fixed time in the repeated autumn hour (02:30) fires once, not twice", () => {
    const times = walk(paris("30 2 * * *"), unused, at("2026-10-24T12:00:00Z"), 2);
    assert.deepEqual(iso(times), ["2026-10-25T00:30:00.000Z", "2026-10-26T01:30:00.000Z"]);
  });

  test("hourly: the missing spring hour never fires; the repeated autumn hour fires twice under two names", () => {
    const hourly = paris("0 * * * *");
    const spring = walk(hourly, unused, at("2026-03-28T23:30:00Z"), 3);
    assert.deepEqual(
      spring.map((time) => wallClock(time, "Europe/Paris")),
      ["2026-03-29 01:00", "2026-03-29 03:00", "2026-03-29 04:00"],
    );
    const autumn = walk(hourly, unused, at("2026-10-24T23:30:00Z"), 3);
    assert.deepEqual(iso(autumn), [
      "2026-10-25T00:00:00.000Z",
      "2026-10-25T01:00:00.000Z",
      "2026-10-25T02:00:00.000Z",
    ]);
    assert.deepEqual(
      autumn.map((time) => firingLoopName("hourly", time, hourly)),
      ["hourly-20261025-0200", "hourly-20261025-0200-2", "hourly-20261025-0300"],
    );
  });
});

describe("every rules", () => {
  const anchor = at("2026-12-01T10:07:00Z");
  const every30m: ScheduleRule = { every: 30 * 60_000 };

  test("fire every period counted from the registration, never at the registration itself", () => {
    assert.deepEqual(iso(walk(every30m, anchor, anchor, 3)), [
      "2026-12-01T10:37:00.000Z",
      "2026-12-01T11:07:00.000Z",
      "2026-12-01T11:37:00.000Z",
    ]);
    assert.equal(
      nextFiring(every30m, anchor, at("2026-12-01T10:50:00Z"))?.toISOString(),
      "2026-12-01T11:07:00.000Z",
    );
    assert.equal(
      nextFiring(every30m, anchor, at("2026-12-01T11:07:00Z"))?.toISOString(),
      "2026-12-01T11:37:00.000Z",
    );
  });

  test("a firing is due at its exact time, not a millisecond before", () => {
    assert.equal(dueFirings(every30m, anchor, anchor, at("2026-12-01T10:36:59.999Z")).latest, undefined);
    assert.equal(
      dueFirings(every30m, anchor, anchor, at("2026-12-01T10:37:00.000Z")).latest?.toISOString(),
      "2026-12-01T10:37:00.000Z",
    );
  });

  test("named in UTC", () => {
    assert.equal(firingLoopName("sweep", at("2026-12-01T10:37:00Z"), every30m), "sweep-20261201-1037");
  });
});

describe("missed firings", () => {
  test("the service down for 3 hours over an hourly schedule: 3 missed, the latest fires, no burst", () => {
    const hourly: ScheduleRule = { cron: "0 * * * *", timezone: "UTC" };
    // Last firing decided at 09:00; the service comes back at 13:05.
    const due = dueFirings(hourly, unused, at("2026-12-01T09:00:00Z"), at("2026-12-01T13:05:00Z"));
    assert.equal(due.latest?.toISOString(), "2026-12-01T13:00:00.000Z");
    assert.deepEqual(iso(due.missed), [
      "2026-12-01T10:00:00.000Z",
      "2026-12-01T11:00:00.000Z",
      "2026-12-01T12:00:00.000Z",
    ]);
    assert.equal(due.missedUnlisted, false);
    // The same with every: 1h.
    const anchor = at("2026-12-01T08:00:00Z");
    const every = dueFirings(
      { every: 3_600_000 },
      anchor,
      at("2026-12-01T09:00:00Z"),
      at("2026-12-01T13:05:00Z"),
    );
    assert.deepEqual(every, due);
  });

  test("a year down on a one-minute schedule lists only the latest missed firings, and says so, at once", () => {
    const started = performance.now();
    for (const rule of [
      { every: 60_000 },
      { cron: "* * * * *", timezone: "Europe/Paris" },
    ] as ScheduleRule[]) {
      const due = dueFirings(
        rule,
        at("2025-12-01T00:00:00Z"),
        at("2025-12-01T00:00:00Z"),
        at("2026-12-01T00:00:30Z"),
      );
      assert.equal(due.latest?.toISOString(), "2026-12-01T00:00:00.000Z");
      assert.equal(due.missed.length, missedListLimit);
      assert.equal(due.missed.at(-1)?.toISOString(), "2026-11-30T23:59:00.000Z");
      assert.equal(due.missedUnlisted, true);
    }
    assert.ok(performance.now() - started < 2000, "computed without walking a year minute by minute");
  });
});

describe("branches of firings", () => {
  test("the default branch follows the loop's name; an explicit branch gets the firing's stamp", () => {
    assert.equal(
      firingBranch({ name: "nightly", branch: "loop/nightly" }, "nightly-20261201-0300"),
      "loop/nightly-20261201-0300",
    );
    assert.equal(
      firingBranch({ name: "nightly", branch: "fix/deps" }, "nightly-20261201-0300"),
      "fix/deps-20261201-0300",
    );
  });
});
