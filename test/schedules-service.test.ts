import assert from "node:assert/strict";
import { test } from "node:test";
import { createSandbox } from "./support/loop-sandbox.ts";
import { startService, stopService, timelines, waitForStopped } from "./support/service-harness.ts";
import { waitFor } from "./support/wait-for.ts";

const spec = (schedule: string) => `name: sweep
goal: answer.txt says 42.
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { answer.txt: "42\\n" }
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }
schedule: ${schedule}
`;

test("run --detach registers an every schedule; a real serve fires it into a loop that finishes verified", async () => {
  const sandbox = await createSandbox({ "README.md": "# repo\n" });
  try {
    const path = await sandbox.spec(spec("{ every: 1m }"));
    const detached = await sandbox.cli(["run", "--detach", path]);
    assert.equal(detached.code, 0, detached.stdout + detached.stderr);
    assert.match(detached.stdout, new RegExp(`^registered schedule sweep in ${sandbox.repo}: every 1m\\n`));
    assert.match(
      detached.stdout,
      /\nnext firing \d{4}-\d\d-\d\d \d\d:\d\d UTC; each firing starts a new loop sweep-<yyyymmdd>-<hhmm>\n/,
    );
    assert.match(
      detached.stdout,
      /no service is running: start one with `loopwright serve`, which fires schedules/,
    );
    assert.equal(timelines(sandbox).size, 0, "registering queues nothing");

    // The service's clock runs a minute ahead, so the first firing is due at its first tick, not in a minute.
    const service = await startService(sandbox, [], { LOOPWRIGHT_TEST_CLOCK_SKEW_MS: "60000" });
    try {
      await waitFor(() => timelines(sandbox).size === 1, "the firing's loop", 30_000);
      const [name] = [...timelines(sandbox).keys()];
      assert.match(name, /^sweep-\d{8}-\d{4}$/);
      await waitForStopped(sandbox, [name], "the fired loop to finish", 60_000);
      const events = timelines(sandbox).get(name) ?? [];
      const queued = events.find((event) => event.type === "loop_queued");
      assert.deepEqual(queued?.data, { by: { via: "schedule", name: "sweep" }, command: "run" });
      const stopped = events.findLast((event) => event.type === "loop_stopped");
      assert.equal(stopped?.data.reason, "verified", JSON.stringify(stopped?.data));
      assert.equal(await sandbox.git("show", `loop/${name}:answer.txt`), "42");

      assert.match(service.output(), new RegExp(`schedule sweep \\(\\S+\\): started ${name}-[0-9a-f]{8}`));
      const listed = await sandbox.cli(["schedules", "--json"]);
      const [view] = JSON.parse(listed.stdout);
      assert.deepEqual(
        view.recentFirings.map((firing: { outcome: string; loopId: string }) => firing.outcome),
        ["started"],
      );
    } finally {
      await stopService(service);
    }

    // Registering again replaces the schedule and says so.
    await sandbox.spec(spec('{ cron: "0 3 * * 1-5", timezone: Europe/Paris }'), path);
    const replaced = await sandbox.cli(["run", "--detach", path]);
    assert.equal(replaced.code, 0, replaced.stderr);
    assert.match(
      replaced.stdout,
      new RegExp(
        `^replaced schedule sweep in ${sandbox.repo}: was every 1m, now cron 0 3 \\* \\* 1-5 \\(Europe/Paris\\)\\n`,
      ),
    );
  } finally {
    await sandbox.cleanup();
  }
});

test("run --detach of a bad schedule is refused with file:line problems and registers nothing; --json describes a registration", async () => {
  const sandbox = await createSandbox({ "README.md": "# repo\n" });
  try {
    const bad = await sandbox.spec(spec('{ cron: "0 25 * * *", timezone: Mars/Olympus }'));
    const refused = await sandbox.cli(["run", "--detach", bad]);
    assert.equal(refused.code, 2);
    assert.match(
      refused.stderr,
      /loop\.yaml:10: schedule\.cron: not a cron expression: Invalid value for hour: 25/,
    );
    assert.match(refused.stderr, /loop\.yaml:10: schedule\.timezone: unknown time zone 'Mars\/Olympus'/);
    const none = await sandbox.cli(["schedules", "--json"]);
    assert.deepEqual(JSON.parse(none.stdout), []);

    const good = await sandbox.spec(spec('{ cron: "30 2 * * *", timezone: America/New_York }'));
    const registered = await sandbox.cli(["run", "--detach", good, "--json"]);
    assert.equal(registered.code, 0, registered.stderr);
    const answer = JSON.parse(registered.stdout);
    assert.equal(answer.schedule.name, "sweep");
    assert.deepEqual(answer.rule, { cron: "30 2 * * *", timezone: "America/New_York" });
    assert.equal(answer.replaced, null);
    assert.match(answer.nextFiring.local, / 02:30$/);
    assert.match(answer.nextFiring.utc, / 0[67]:30$/);
    assert.equal(answer.service, null);
    assert.equal(timelines(sandbox).size, 0);
  } finally {
    await sandbox.cleanup();
  }
});
