/**
 * A scheduled run interrupted (its controller died: marked running, no live lock holder) counts as
 * active: the next firing is skipped and recorded, not started over it. Once the run has finished, the
 * schedule fires again.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { loadSpecFile } from "../src/core/spec-file.ts";
import { git } from "../src/git/git.ts";
import { runLoop } from "../src/loop/runner.ts";
import { fireDueSchedules } from "../src/service/schedules/fire-due-schedules.ts";
import { registerSchedule } from "../src/service/schedules/register-schedule.ts";
import { openStore } from "../src/store/open-store.ts";
import { commitEverything, newFolder, writeFiles } from "./git-fixtures.ts";

const at = (iso: string) => new Date(iso);

test("an interrupted scheduled run is active: the next firing is skipped, not started over it", async () => {
  const folder = await newFolder("schedule-interrupted");
  const repo = join(folder, "repo");
  await writeFiles(folder, { "repo/README.md": "# demo\n" });
  await git(["init", "--quiet", "--initial-branch=main"], repo);
  await commitEverything(repo, "initial");
  const specPath = join(folder, "loop.yaml");
  await writeFile(
    specPath,
    `name: sweep
goal: answer.txt says 42.
repo: ./repo
maker: { engine: scripted, turns: [{ write: { answer.txt: "42\\n" } }] }
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }
budget: { maxIterations: 2 }
schedule: { every: 30m }
`,
  );
  const home = join(folder, "home");
  const store = await openStore(home);
  try {
    await registerSchedule(store, await loadSpecFile(specPath), "loop.yaml", at("2026-12-01T10:00:00Z"));
    const [first] = await fireDueSchedules(store, home, at("2026-12-01T10:30:01Z"));
    assert.equal(first.outcome, "started");
    const loopId = first.loopId ?? "";

    // Its controller took it, then died: a run started by a process that is gone, no live lock holder.
    await store.appendEvent(loopId, "run_started", {
      runId: "dead-run",
      pid: 2 ** 22 + 1, // above any pid_max: no such process
      host: hostname(),
      command: "run",
    });
    assert.equal(await store.lockHolder(loopId), undefined);
    const skipped = await fireDueSchedules(store, home, at("2026-12-01T11:00:01Z"));
    assert.deepEqual(
      skipped.map((firing) => [firing.outcome, firing.loopId, firing.reason]),
      [
        [
          "skipped-active",
          loopId,
          `the previous run ${loopId} was interrupted and is not finished (the service resumes it)`,
        ],
      ],
    );
    assert.equal((await store.listLoops()).length, 1, "no second run was created");

    // Resumed to the end (as the service does), the run no longer holds its schedule back.
    const loop = await store.findLoop(loopId);
    assert.ok(loop);
    const state = await runLoop({ store, loop, home, command: "resume" });
    assert.equal(state.stopReason, "verified");
    const next = await fireDueSchedules(store, home, at("2026-12-01T11:30:01Z"));
    assert.deepEqual(
      next.map((firing) => firing.outcome),
      ["started"],
    );
  } finally {
    await store.close();
  }
});
