import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, describe, test } from "node:test";
import { scheduleListSchema } from "../src/app/schemas/schedule-schemas.ts";
import { submitLoop } from "../src/app/submit-loop.ts";
import { submitSpec } from "../src/app/submit-spec.ts";
import { loadSpecFile, parseSpecText } from "../src/core/spec-file.ts";
import { FieldError, SpecError } from "../src/errors.ts";
import { git } from "../src/git/git.ts";
import { runLoop } from "../src/loop/runner.ts";
import { readState } from "../src/loop/timeline.ts";
import { homeLayout } from "../src/paths.ts";
import { currentLockOwner } from "../src/process/liveness.ts";
import { fireDueSchedules } from "../src/service/schedules/fire-due-schedules.ts";
import { listSchedules } from "../src/service/schedules/list-schedules.ts";
import { registerSchedule } from "../src/service/schedules/register-schedule.ts";
import { openStore } from "../src/store/open-store.ts";
import type { Store } from "../src/store/store.ts";
import { commitEverything, newFolder, setupIdentity, writeFiles } from "./git-fixtures.ts";

const at = (iso: string) => new Date(iso);

/** A scripted loop that writes answer.txt and is verified by one gate: it finishes in a second or two. */
function scheduledSpec(schedule: string, name = "sweep"): string {
  return `name: ${name}
goal: answer.txt says 42.
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { answer.txt: "42\\n" }
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }
budget: { maxIterations: 2 }
schedule: ${schedule}
`;
}

interface World {
  home: string;
  repo: string;
  store: Store;
  specPath: string;
}

const stores: Store[] = [];
after(async () => {
  for (const store of stores) await store.close();
});

/** A repository in `<folder>/repo`, a spec beside it, and a fresh home with its store. */
async function world(schedule: string, name?: string): Promise<World> {
  const folder = await newFolder("schedules");
  const repo = join(folder, "repo");
  await writeFiles(folder, { "repo/README.md": "# demo\n" });
  await git(["init", "--quiet", "--initial-branch=main"], repo);
  await commitEverything(repo, "initial");
  const specPath = join(folder, "loop.yaml");
  await writeFile(specPath, scheduledSpec(schedule, name));
  const home = join(folder, "home");
  const store = await openStore(home);
  stores.push(store);
  return { home, repo, store, specPath };
}

async function register(world: World, now: Date) {
  return registerSchedule(world.store, await loadSpecFile(world.specPath), "loop.yaml", now);
}

async function firings(store: Store, name: string) {
  const schedule = await store.findSchedule(name);
  assert.ok(schedule, `schedule ${name} exists`);
  return (await store.listFirings(schedule.id, 50)).map((firing) => ({
    scheduledFor: firing.scheduledFor,
    outcome: firing.outcome,
    loopId: firing.loopId,
    reason: firing.reason,
  }));
}

describe("the schedule field", () => {
  const base = "name: nightly\ngoal: keep it green\nmaker: { engine: command, run: make }\n";
  const problems = (schedule: string): string[] => {
    try {
      parseSpecText(`${base}${schedule}\n`, "loop.yaml", "/tmp");
    } catch (error) {
      if (error instanceof SpecError) return error.problems;
      throw error;
    }
    assert.fail("the spec was accepted");
  };

  test("a cron with a zone and an every period parse to their rule; a zone is written canonically", () => {
    const cron = parseSpecText(
      `${base}schedule: { cron: "0 3 * * 1-5", timezone: europe/paris }\n`,
      "l.yaml",
      "/tmp",
    );
    assert.deepEqual(cron.spec.schedule, { cron: "0 3 * * 1-5", timezone: "Europe/Paris" });
    const every = parseSpecText(`${base}schedule: { every: 30m }\n`, "l.yaml", "/tmp");
    assert.deepEqual(every.spec.schedule, { every: 1_800_000 });
  });

  test("each bad field is named with its file and line", () => {
    assert.deepEqual(problems("schedule:\n  cron: '61 3 * * *'\n  timezone: Europe/Pariss"), [
      "loop.yaml:5: schedule.cron: not a cron expression: Invalid value for minute: 61 (five fields: minute hour day-of-month month day-of-week, e.g. 0 3 * * 1-5)",
      "loop.yaml:6: schedule.timezone: unknown time zone 'Europe/Pariss' (did you mean Europe/Paris?); use an IANA name such as Europe/Paris or UTC",
    ]);
    assert.deepEqual(problems("schedule: { cron: '0 3 * *', timezone: UTC }"), [
      "loop.yaml:4: schedule.cron: not a cron expression: '0 3 * *' has 4 fields (five fields: minute hour day-of-month month day-of-week, e.g. 0 3 * * 1-5)",
    ]);
    assert.deepEqual(problems("schedule: { cron: '0 0 30 2 *', timezone: UTC }"), [
      "loop.yaml:4: schedule.cron: '0 0 30 2 *' never fires",
    ]);
    assert.deepEqual(problems("schedule: { cron: '0 3 * * *' }"), [
      "loop.yaml:4: schedule.timezone: required with cron: a time zone such as Europe/Paris, America/New_York or UTC",
    ]);
    for (const every of ["0", "10s", "59s"]) {
      assert.deepEqual(problems(`schedule: { every: ${every} }`), [
        "loop.yaml:4: schedule.every: must be at least 1m: each firing starts a whole loop",
      ]);
    }
    assert.deepEqual(problems("schedule: { every: soon }"), [
      'loop.yaml:4: schedule.every: not a duration: "soon" (use 30m, 2h, 24h)',
    ]);
    assert.deepEqual(problems("schedule: { every: 5m, cron: '* * * * *' }"), [
      "loop.yaml:4: schedule.every: give either cron or every, not both",
    ]);
    assert.deepEqual(problems("schedule: {}"), [
      "loop.yaml:4: schedule: give cron (with timezone) or every, e.g. { every: 30m } or { cron: 0 3 * * 1-5, timezone: UTC }",
    ]);
    assert.deepEqual(problems("schedule: { every: 5m, timezone: UTC }"), [
      "loop.yaml:4: schedule.timezone: only with cron: every counts from when the schedule is registered",
    ]);
    assert.deepEqual(problems("schedule: 30m"), ["loop.yaml:4: schedule: expected a mapping, got '30m'"]);
  });

  test("a spec that does not validate as run would is not registered, and nothing is stored", async () => {
    const w = await world("{ every: 30m }");
    await writeFile(
      w.specPath,
      scheduledSpec("{ every: 30m }").replace("grep -qx 42 answer.txt", "./missing.sh"),
    );
    await assert.rejects(register(w, at("2026-12-01T10:00:00Z")), (error: unknown) => {
      assert.ok(error instanceof SpecError);
      assert.match(error.message, /loop\.yaml: gates\[0\]\.run: command not found: \.\/missing\.sh/);
      return true;
    });
    assert.deepEqual(await w.store.listSchedules(), []);
  });
});

describe("firing", () => {
  test("each firing starts its own queued loop named after the firing time, against the current HEAD; a firing while the previous run is queued or running is skipped and recorded", async () => {
    const w = await world("{ every: 30m }");
    const registration = await register(w, at("2026-12-01T10:00:00.400Z"));
    assert.equal(registration.nextFiringAt?.toISOString(), "2026-12-01T10:30:00.000Z");

    assert.deepEqual(
      await fireDueSchedules(w.store, w.home, at("2026-12-01T10:29:59Z")),
      [],
      "nothing due yet",
    );
    assert.deepEqual(await w.store.listLoops(), []);

    const first = await fireDueSchedules(w.store, w.home, at("2026-12-01T10:30:02Z"));
    assert.equal(first.length, 1);
    assert.equal(first[0].outcome, "started");
    const loop = await w.store.findLoop(first[0].loopId ?? "");
    assert.ok(loop);
    assert.equal(loop.name, "sweep-20261201-1030");
    const { state, events } = await readState(w.store, loop);
    const created = events.find((event) => event.type === "loop_created");
    assert.equal(created?.data.branch, "loop/sweep-20261201-1030");
    assert.equal(created?.data.baseSha, await git(["rev-parse", "HEAD"], w.repo, { trim: true }));
    const queued = events.find((event) => event.type === "loop_queued");
    assert.deepEqual(queued?.data, { by: { via: "schedule", name: "sweep" }, command: "run" });
    assert.equal(state.queued?.command, "run");
    assert.equal(
      (loop.spec as { schedule?: unknown }).schedule,
      undefined,
      "a fired loop is a loop, not a schedule",
    );

    // The same tick again fires nothing: the firing was decided once.
    assert.deepEqual(await fireDueSchedules(w.store, w.home, at("2026-12-01T10:30:05Z")), []);

    // 11:00: the 10:30 run is still queued.
    const skipped = await fireDueSchedules(w.store, w.home, at("2026-12-01T11:00:01Z"));
    assert.deepEqual(
      skipped.map((firing) => [firing.outcome, firing.loopId, firing.reason]),
      [["skipped-active", loop.id, `the previous run ${loop.id} is still queued`]],
    );

    // 11:30: a live controller holds its lock (as a run in the service or the foreground would).
    const owner = currentLockOwner("test-run");
    assert.equal((await w.store.acquireLock(loop.id, owner)).acquired, true);
    const running = await fireDueSchedules(w.store, w.home, at("2026-12-01T11:30:00Z"));
    assert.deepEqual(
      running.map((firing) => [firing.outcome, firing.reason]),
      [["skipped-active", `the previous run ${loop.id} is still running`]],
    );
    await w.store.releaseLock(loop.id, owner.runId);

    // The run happens and ends verified; the repository moves on meanwhile.
    const ran = await runLoop({ store: w.store, loop, home: w.home, command: "run" });
    assert.equal(ran.stopReason, "verified");
    await writeFiles(w.repo, { "CHANGELOG.md": "moved on\n" });
    const newHead = await commitEverything(w.repo, "moved on");

    const second = await fireDueSchedules(w.store, w.home, at("2026-12-01T12:00:00Z"));
    assert.equal(second[0].outcome, "started");
    const secondLoop = await w.store.findLoop(second[0].loopId ?? "");
    assert.equal(secondLoop?.name, "sweep-20261201-1200");
    const secondCreated = (await w.store.readEvents(secondLoop?.id ?? "")).find(
      (event) => event.type === "loop_created",
    );
    assert.equal(secondCreated?.data.baseSha, newHead, "the base is the repository's HEAD at firing time");

    assert.deepEqual(
      (await firings(w.store, "sweep")).map((firing) => [firing.scheduledFor, firing.outcome]),
      [
        ["2026-12-01T12:00:00.000Z", "started"],
        ["2026-12-01T11:30:00.000Z", "skipped-active"],
        ["2026-12-01T11:00:00.000Z", "skipped-active"],
        ["2026-12-01T10:30:00.000Z", "started"],
      ],
    );
    const views = await listSchedules(w.store, at("2026-12-01T12:10:00Z"));
    assert.deepEqual(scheduleListSchema.parse(views), views, "the API's published schema holds");
    const [view] = views;
    assert.equal(view.description, "every 30m");
    assert.deepEqual(view.nextFiring, {
      at: "2026-12-01T12:30:00.000Z",
      local: "2026-12-01 12:30",
      timezone: "UTC",
      utc: "2026-12-01 12:30",
    });
    assert.equal(view.overdueSince, undefined);
    assert.deepEqual(
      view.recentFirings.map((firing) => [firing.time.local, firing.outcome]),
      [
        ["2026-12-01 12:00", "started"],
        ["2026-12-01 11:30", "skipped-active"],
        ["2026-12-01 11:00", "skipped-active"],
        ["2026-12-01 10:30", "started"],
      ],
    );
  });

  test("the service down for 3 hours over an hourly schedule: 3 missed recorded, one fires, no burst", async () => {
    const w = await world('{ cron: "0 * * * *", timezone: Europe/Paris }');
    await register(w, at("2026-12-01T08:30:00Z"));
    const first = await fireDueSchedules(w.store, w.home, at("2026-12-01T09:00:01Z"));
    assert.deepEqual(
      first.map((firing) => firing.outcome),
      ["started"],
    );
    const firstLoop = await w.store.findLoop(first[0].loopId ?? "");
    assert.equal(firstLoop?.name, "sweep-20261201-1000", "named on the Paris wall clock");
    await runLoop({ store: w.store, loop: firstLoop ?? assert.fail(), home: w.home, command: "run" });

    // Down from 09:00:01 to 13:05 UTC: 10:00, 11:00 and 12:00 pass unseen.
    const [view] = await listSchedules(w.store, at("2026-12-01T13:05:00Z"));
    assert.equal(view.overdueSince?.at, "2026-12-01T10:00:00.000Z");
    const back = await fireDueSchedules(w.store, w.home, at("2026-12-01T13:05:00Z"));
    assert.deepEqual(
      back.map((firing) => [firing.scheduledFor, firing.outcome]),
      [
        ["2026-12-01T10:00:00.000Z", "missed"],
        ["2026-12-01T11:00:00.000Z", "missed"],
        ["2026-12-01T12:00:00.000Z", "missed"],
        ["2026-12-01T13:00:00.000Z", "started"],
      ],
    );
    const loops = await w.store.listLoops();
    assert.deepEqual(loops.map((loop) => loop.name).sort(), ["sweep-20261201-1000", "sweep-20261201-1400"]);
    assert.deepEqual(await fireDueSchedules(w.store, w.home, at("2026-12-01T13:59:59Z")), []);
  });

  test("a firing that cannot create its loop is recorded as failed with the reason, nothing half-created", async () => {
    const w = await world("{ every: 1h }");
    await register(w, at("2026-12-01T10:00:00Z"));
    await git([...setupIdentity, "branch", "loop/sweep-20261201-1100"], w.repo);
    const failed = await fireDueSchedules(w.store, w.home, at("2026-12-01T11:00:00Z"));
    assert.equal(failed[0].outcome, "failed");
    assert.match(failed[0].reason ?? "", /branch loop\/sweep-20261201-1100 already exists/);
    assert.deepEqual(await w.store.listLoops(), [], "nothing half-created");

    // The gate's script disappears from the repository: the snapshot is validated again at firing time.
    await writeFile(
      w.specPath,
      scheduledSpec("{ every: 1h }").replace("grep -qx 42 answer.txt", "./check.sh"),
    );
    await writeFiles(w.repo, { "check.sh": "#!/bin/sh\ngrep -qx 42 answer.txt\n" });
    await commitEverything(w.repo, "check script");
    await register(w, at("2026-12-01T11:10:00Z"));
    await git(["rm", "--quiet", "check.sh"], w.repo);
    await commitEverything(w.repo, "no check script");
    const invalid = await fireDueSchedules(w.store, w.home, at("2026-12-01T12:10:00Z"));
    assert.equal(invalid[0].outcome, "failed");
    assert.match(invalid[0].reason ?? "", /gates\[0\]\.run: command not found: \.\/check\.sh/);
    assert.deepEqual(await w.store.listLoops(), []);
  });

  test("two ticks at once (two processes, or a slow tick) start one loop, not two", async () => {
    const w = await world("{ every: 30m }");
    await register(w, at("2026-12-01T10:00:00Z"));
    const both = await Promise.all([
      fireDueSchedules(w.store, w.home, at("2026-12-01T10:30:00Z")),
      fireDueSchedules(w.store, w.home, at("2026-12-01T10:30:00Z")),
    ]);
    assert.equal(both.flat().length, 1);
    assert.equal((await w.store.listLoops()).length, 1);
  });

  test("a firing claimed by a process that died before starting its loop is started by the next tick, once", async () => {
    const w = await world("{ every: 30m }");
    const { schedule } = await register(w, at("2026-12-01T10:00:00Z"));
    // The dead process decided the 10:30 firing and even created its loop, but never queued it.
    const claimed = await w.store.claimFirings(schedule.id, {
      expectedConsideredUntil: schedule.consideredUntil,
      consideredUntil: "2026-12-01T10:30:00.000Z",
      nextFiringAt: "2026-12-01T11:00:00.000Z",
      firings: [{ scheduledFor: "2026-12-01T10:30:00.000Z", outcome: "pending" }],
    });
    assert.equal(claimed?.length, 1);
    const next = await fireDueSchedules(w.store, w.home, at("2026-12-01T10:31:00Z"));
    assert.deepEqual(
      next.map((firing) => firing.outcome),
      ["started"],
    );
    assert.deepEqual(await fireDueSchedules(w.store, w.home, at("2026-12-01T10:32:00Z")), []);
    const loops = await w.store.listLoops();
    assert.deepEqual(
      loops.map((loop) => loop.name),
      ["sweep-20261201-1030"],
    );
  });
});

describe("submitting a spec", () => {
  test("submitSpec registers a scheduled spec from a request body; submitLoop refuses to queue it once", async () => {
    const w = await world("{ every: 30m }");
    const source = {
      text: await readFile(w.specPath, "utf8"),
      label: "body",
      directory: dirname(w.specPath),
    };
    const by = { via: "web", name: "loopback" } as const;
    await assert.rejects(submitLoop({ context: w, source, by }), (error: unknown) => {
      assert.ok(error instanceof FieldError);
      assert.equal(error.field, "schedule");
      return true;
    });
    assert.deepEqual(await w.store.listLoops(), [], "nothing queued");
    const submitted = await submitSpec({ context: w, source, by }, at("2026-12-01T10:00:00Z"));
    assert.equal(submitted.kind, "schedule");
    assert.deepEqual(submitted.kind === "schedule" && submitted.registration.rule, { every: 1_800_000 });
    assert.equal(submitted.kind === "schedule" && submitted.service, undefined, "no service runs");
    assert.deepEqual(await w.store.listLoops(), []);
    assert.equal((await w.store.listSchedules()).length, 1);
  });
});

describe("registering again and removing", () => {
  test("registering a spec of the same name replaces its schedule: same id, firings kept, counted afresh", async () => {
    const w = await world("{ every: 30m }");
    const first = await register(w, at("2026-12-01T10:00:00Z"));
    await fireDueSchedules(w.store, w.home, at("2026-12-01T10:30:00Z"));
    await writeFile(w.specPath, scheduledSpec('{ cron: "0 3 * * 1-5", timezone: Europe/Paris }'));
    const second = await register(w, at("2026-12-01T10:40:00Z"));
    assert.equal(second.schedule.id, first.schedule.id);
    assert.deepEqual(second.replaced?.rule, { every: 1_800_000 });
    assert.equal(second.schedule.replacedAt, "2026-12-01T10:40:00.000Z");
    assert.equal(second.nextFiringAt?.toISOString(), "2026-12-02T02:00:00.000Z");
    assert.deepEqual(
      await fireDueSchedules(w.store, w.home, at("2026-12-01T11:00:00Z")),
      [],
      "the old rule is gone",
    );
    const [view] = await listSchedules(w.store, at("2026-12-01T11:00:00Z"));
    assert.equal(view.description, "cron 0 3 * * 1-5 (Europe/Paris)");
    assert.deepEqual(view.nextFiring, {
      at: "2026-12-02T02:00:00.000Z",
      local: "2026-12-02 03:00",
      timezone: "Europe/Paris",
      utc: "2026-12-02 02:00",
    });
    assert.equal(view.recentFirings.length, 1, "the firings of the replaced rule are kept");
    assert.equal((await w.store.listSchedules()).length, 1);
  });

  test("removing a schedule removes its firings; the loops it started stay", async () => {
    const w = await world("{ every: 30m }");
    const { schedule } = await register(w, at("2026-12-01T10:00:00Z"));
    await fireDueSchedules(w.store, w.home, at("2026-12-01T10:30:00Z"));
    await w.store.deleteSchedule(schedule.id);
    assert.deepEqual(await w.store.listSchedules(), []);
    assert.deepEqual(await w.store.listFirings(schedule.id, 10), []);
    assert.equal((await w.store.listLoops()).length, 1);
    assert.deepEqual(await fireDueSchedules(w.store, w.home, at("2026-12-01T11:00:00Z")), []);
  });
});

describe("a tick", () => {
  test("a damaged schedule row is listed as damaged and recorded as a failed firing once; it never breaks a tick", async () => {
    const w = await world("{ every: 30m }");
    await register(w, at("2026-12-01T10:00:00Z"));
    const database = new DatabaseSync(homeLayout(w.home).database);
    database.exec(`UPDATE schedules SET rule = '{"every": "soon"}'`);
    database.close();
    const [view] = await listSchedules(w.store, at("2026-12-01T10:10:00Z"));
    assert.equal(view.problem, "its stored rule is damaged; register it again with run --detach");
    const fired = await fireDueSchedules(w.store, w.home, at("2026-12-01T10:30:00Z"));
    assert.deepEqual(
      fired.map((firing) => [firing.outcome, firing.reason]),
      [["failed", "its stored rule is damaged; register it again with run --detach"]],
    );
    assert.deepEqual(await fireDueSchedules(w.store, w.home, at("2026-12-01T11:30:00Z")), []);
    assert.deepEqual(await w.store.listLoops(), []);
  });

  test("is cheap when nothing is due: 1,000 schedules cost one indexed query", async () => {
    const w = await world("{ every: 30m }");
    for (let index = 0; index < 1000; index++) {
      await w.store.saveSchedule(
        {
          name: `s${index}`,
          repoRoot: w.repo,
          specPath: w.specPath,
          spec: {},
          rule: { every: 3_600_000 },
          consideredUntil: "2026-12-01T10:00:00.000Z",
          nextFiringAt: "2026-12-01T11:00:00.000Z",
        },
        "2026-12-01T10:00:00.000Z",
      );
    }
    const started = performance.now();
    const ticks = 100;
    for (let tick = 0; tick < ticks; tick++)
      await fireDueSchedules(w.store, w.home, at("2026-12-01T10:59:59Z"));
    const perTickMs = (performance.now() - started) / ticks;
    process.stdout.write(`# a tick with 1,000 schedules, none due: ${perTickMs.toFixed(2)} ms\n`);
    assert.ok(perTickMs < 20, `a tick took ${perTickMs} ms`);
  });
});
