import assert from "node:assert/strict";
import { test } from "node:test";
import { loadSpecFile } from "../src/core/spec-file.ts";
import { fireDueSchedules } from "../src/service/schedules/fire-due-schedules.ts";
import { registerSchedule } from "../src/service/schedules/register-schedule.ts";
import { openStore } from "../src/store/open-store.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const spec = (schedule: string) => `name: nightly
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

/** Registers the sandbox's spec in its home's store, at `now`, the way run --detach does. */
async function registerIn(sandbox: Sandbox, specPath: string, now?: Date) {
  const previous = { ...process.env };
  Object.assign(process.env, sandbox.env);
  try {
    const store = await openStore(sandbox.home);
    try {
      return await registerSchedule(store, await loadSpecFile(specPath), "loop.yaml", now);
    } finally {
      await store.close();
    }
  } finally {
    for (const key of Object.keys(process.env)) if (!(key in previous)) delete process.env[key];
    Object.assign(process.env, previous);
  }
}

test("loopwright schedules lists the next firing in the zone and in UTC, then the latest firings; --remove drops one", async () => {
  const sandbox = await createSandbox({ "README.md": "# repo\n" });
  try {
    const specPath = await sandbox.spec(spec('{ cron: "0 3 * * 1-5", timezone: Europe/Paris }'));
    await registerIn(sandbox, specPath);
    const list = await sandbox.cli(["schedules"]);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^nightly {2}cron 0 3 \* \* 1-5 \(Europe\/Paris\)\n/);
    assert.match(
      list.stdout,
      /\n {2}next firing {2}\d{4}-\d\d-\d\d 03:00 Europe\/Paris \(\d{4}-\d\d-\d\d 0[12]:00 UTC\)\n/,
    );

    const json = await sandbox.cli(["schedules", "--json"]);
    const [view] = JSON.parse(json.stdout);
    assert.equal(view.name, "nightly");
    assert.equal(view.repoRoot, sandbox.repo);
    assert.deepEqual(view.rule, { cron: "0 3 * * 1-5", timezone: "Europe/Paris" });
    assert.equal(view.nextFiring.timezone, "Europe/Paris");

    // Outside a repository, as with --all, every repository's schedules are listed, each with its repository.
    for (const args of [["schedules"], ["schedules", "--all"]]) {
      const all = await sandbox.cli(args, { cwd: sandbox.root });
      assert.match(
        all.stdout,
        new RegExp(`^nightly {2}cron 0 3 \\* \\* 1-5 \\(Europe/Paris\\) {2}${sandbox.repo}\\n`),
      );
    }

    const missing = await sandbox.cli(["schedules", "--remove", "weekly"]);
    assert.equal(missing.code, 2);
    assert.match(
      missing.stderr,
      /no schedule named or with id 'weekly' in .*\(see loopwright schedules --all\)/,
    );
    const removed = await sandbox.cli(["schedules", "--remove", "nightly"]);
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(
      removed.stdout,
      `removed schedule nightly of ${sandbox.repo}; the loops it started stay (loopwright ls lists them)\n`,
    );
    const none = await sandbox.cli(["schedules"]);
    assert.match(none.stdout, /^no schedules in .* \(loopwright schedules --all lists every schedule\)/);
  } finally {
    await sandbox.cleanup();
  }
});

test("the latest firings show their outcome and loop; an overdue firing asks whether the service runs", async () => {
  const sandbox = await createSandbox({ "README.md": "# repo\n" });
  try {
    const specPath = await sandbox.spec(spec("{ every: 1h }"));
    const registered = new Date(Date.now() - 3.5 * 3_600_000);
    await registerIn(sandbox, specPath, registered);
    const store = await openStore(sandbox.home);
    try {
      // A tick 1h05 after registration started one run; the service has been down since.
      const first = await fireDueSchedules(store, sandbox.home, new Date(registered.getTime() + 65 * 60_000));
      assert.equal(first[0]?.outcome, "started", JSON.stringify(first));
    } finally {
      await store.close();
    }
    const list = await sandbox.cli(["schedules"]);
    assert.equal(list.code, 0, list.stderr);
    assert.match(
      list.stdout,
      /\n {2}overdue since \d{4}-\d\d-\d\d \d\d:\d\d UTC: is loopwright serve running\?\n/,
    );
    assert.match(
      list.stdout,
      /\n {2}\d{4}-\d\d-\d\d \d\d:\d\d {2}started {9}nightly-\d{8}-\d{4}-[0-9a-f]{8}\n/,
    );
  } finally {
    await sandbox.cleanup();
  }
});

test("a foreground run of a scheduled spec runs once and says the schedule needs run --detach and serve", async () => {
  const sandbox = await createSandbox({ "README.md": "# repo\n" });
  try {
    const specPath = await sandbox.spec(spec("{ every: 30m }"));
    const validate = await sandbox.cli(["validate", specPath]);
    assert.equal(validate.code, 0, validate.stderr);
    assert.match(
      validate.stdout,
      /\n {2}schedule: every 30m \(run --detach registers it; loopwright serve fires it\)\n/,
    );
    const run = await sandbox.cli(["run", specPath]);
    assert.equal(run.code, 0, run.stderr + run.stdout);
    assert.match(
      run.stderr,
      /note: .*loop\.yaml has a schedule \(every 30m\); run starts it once, now\. To fire it on schedule, register it with loopwright run --detach and keep loopwright serve running\./,
    );
    assert.match(run.stdout, /stopped: verified/);
    const schedules = await sandbox.cli(["schedules"]);
    assert.match(schedules.stdout, /^no schedules/, "a foreground run registers nothing");
  } finally {
    await sandbox.cleanup();
  }
});
