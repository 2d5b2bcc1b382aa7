/**
 * The owner's actions through the application layer on real loops: each records who did it; bad input is
 * refused on the named field with nothing filed; resume through a service queues the loop in submission
 * order; cancel stops a loop with or without a live controller; delete refuses a running loop.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Actor } from "../src/app/actor.ts";
import { findLoop } from "../src/app/app-context.ts";
import { cancelLoop } from "../src/app/cancel-loop.ts";
import { deleteLoop } from "../src/app/delete-loop.ts";
import { listLoops } from "../src/app/list-loops.ts";
import { getLoop } from "../src/app/loop-detail.ts";
import { pauseLoop } from "../src/app/pause-loop.ts";
import { resumeLoop } from "../src/app/resume-loop.ts";
import { actionResultSchema, steerResultSchema } from "../src/app/schemas/action-schemas.ts";
import { steerLoop } from "../src/app/steer-loop.ts";
import { FieldError, LoopBusyError, LoopNotFoundError, UsageError } from "../src/errors.ts";
import { type AppSandbox, createAppSandbox, exhaustedSpec, verifiedSpec } from "./support/app-loops.ts";
import { waitFor } from "./support/wait-for.ts";

const alice: Actor = { via: "web", name: "alice" };
let sandbox: AppSandbox;

before(async () => {
  sandbox = await createAppSandbox();
  await sandbox.runLoop("answer", verifiedSpec("answer"), 0);
  await sandbox.runLoop("stuck", exhaustedSpec("stuck"), 3);
});

after(async () => {
  await sandbox.cleanup();
});

test("steer records the request with its actor; every bad field is named and nothing is filed", async () => {
  const bad: [unknown, string][] = [
    [{ budget: { maxIterations: -1 } }, "budget.maxIterations"],
    [{ budget: { bogus: 1 } }, "budget.bogus"],
    [{ addGates: [{ id: "x", kind: "nope", run: "true" }] }, "addGates.0.kind"],
    [{ addGates: [{ id: "done", kind: "tests-pass", run: "true" }] }, "addGates.0.id"],
    [{ removeGates: ["verifier-approves"] }, "removeGates"],
    [{ removeGates: ["nope"] }, "removeGates"],
    [{ goal: "  " }, "goal"],
    [{ goal: 5 }, "goal"],
    [{ color: "red" }, "color"],
    [{}, "body"],
    ["not an object", "body"],
  ];
  for (const [body, field] of bad) {
    await assert.rejects(steerLoop(sandbox.context, "stuck", body as never, alice), (error: unknown) => {
      assert.ok(error instanceof FieldError, `${JSON.stringify(body)}: ${error}`);
      assert.equal(error.field, field, JSON.stringify(body));
      return true;
    });
  }
  assert.equal(sandbox.eventsOfType("steer_requested").length, 0);
  const filed = steerResultSchema.parse(
    await steerLoop(
      sandbox.context,
      "stuck",
      { budget: { maxIterations: 2, wallClockPerIteration: "5m" } },
      alice,
    ),
  );
  assert.equal(filed.appliesAt, "resume");
  assert.match(
    filed.message,
    /steering filed for stuck \(stopped: budget_exhausted\): applied when it resumes/,
  );
  assert.equal(filed.warning, null);
  const [event] = sandbox.eventsOfType("steer_requested");
  assert.deepEqual(event, {
    request: { budget: { maxIterations: 2, wallClockPerIteration: 300_000 } },
    by: alice,
  });
});

test("steering a verified loop is refused and files nothing", async () => {
  const before = sandbox.eventsOfType("steer_requested").length;
  await assert.rejects(steerLoop(sandbox.context, "answer", { goal: "more" }, alice), (error: unknown) => {
    assert.ok(error instanceof UsageError);
    assert.match(error.message, /loop answer is verified and finished: steering would never apply/);
    return true;
  });
  assert.equal(sandbox.eventsOfType("steer_requested").length, before);
});

test("resume through a service queues loops in submission order; pause and cancel record their actor", async () => {
  await assert.rejects(resumeLoop(sandbox.context, "answer", alice), /is verified: nothing to resume/);
  const queued = actionResultSchema.parse(await resumeLoop(sandbox.context, "stuck", alice));
  assert.equal(queued.outcome, "queued");
  assert.equal(queued.queuePosition, 1);
  await assert.rejects(resumeLoop(sandbox.context, "stuck", alice), /already queued/);
  assert.deepEqual(sandbox.eventsOfType("loop_queued"), [{ by: alice, command: "resume" }]);
  // A loop whose controller died mid-run: interrupted, until it is queued too.
  const path = await sandbox.spec(verifiedSpec("crashed"), join(sandbox.root, "crashed.yaml"));
  const crashed = await sandbox.cli(["run", path], { env: { LOOPWRIGHT_TEST_CRASH_AFTER_EVENT: "4" } });
  assert.equal(crashed.code, null, crashed.stderr);
  assert.equal((await getLoop(sandbox.context, "crashed")).status, "interrupted");
  const paused = actionResultSchema.parse(await pauseLoop(sandbox.context, "crashed", alice));
  assert.equal(paused.outcome, "pause_requested");
  assert.deepEqual(sandbox.eventsOfType("pause_requested"), [{ by: alice }]);
  const bob: Actor = { via: "schedule", name: "nightly" };
  assert.equal((await resumeLoop(sandbox.context, "crashed", bob)).queuePosition, 2);
  const list = await listLoops(sandbox.context);
  assert.deepEqual(
    list.loops.map((loop) => [loop.name, loop.status, loop.queuePosition]),
    [
      ["crashed", "queued", 2],
      ["stuck", "queued", 1],
      ["answer", "stopped", null],
    ],
  );
  const detail = await getLoop(sandbox.context, "crashed");
  assert.equal(detail.queuePosition, 2);
  assert.equal(detail.queued?.command, "resume");
  const ls = await sandbox.cli(["ls"]);
  assert.match(ls.stdout, /crashed\s+queued \(#2 in the queue\)/);
  assert.match(ls.stdout, /stuck\s+queued \(budget_exhausted\)/);
  // No controller runs it: cancel stops it here, and the queue moves up.
  const cancelled = actionResultSchema.parse(await cancelLoop(sandbox.context, "crashed", alice));
  assert.equal(cancelled.outcome, "cancelled");
  const stopped = await getLoop(sandbox.context, "crashed");
  assert.equal(stopped.status, "stopped");
  assert.equal(stopped.summary.stopReason, "user_cancelled");
  assert.deepEqual(sandbox.eventsOfType("cancel_requested"), [{ by: alice }]);
  assert.equal((await getLoop(sandbox.context, "stuck")).queuePosition, 1);
  await assert.rejects(cancelLoop(sandbox.context, "crashed", alice), /already stopped \(user_cancelled\)/);
  // A stopped loop queued to resume: cancelling takes it out of the queue.
  assert.equal((await cancelLoop(sandbox.context, "stuck", alice)).outcome, "cancelled");
  const dequeued = await getLoop(sandbox.context, "stuck");
  assert.deepEqual(
    [dequeued.status, dequeued.queuePosition, dequeued.summary.stopReason],
    ["stopped", null, "user_cancelled"],
  );
  await assert.rejects(pauseLoop(sandbox.context, "crashed", alice), /is stopped \(user_cancelled\)/);
});

test("cancel of a running loop asks its controller, which stops it; delete refuses it while it runs", async () => {
  const marker = join(sandbox.root, "maker-started");
  const path = await sandbox.spec(
    `name: slow
goal: never finishes
repo: ./repo
maker: { engine: command, run: "touch ${marker}; sleep 60" }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates: [{ id: t, kind: tests-pass, run: "true" }]
`,
    join(sandbox.root, "slow.yaml"),
  );
  const run = sandbox.spawnCli(["run", path]);
  await waitFor(() => existsSync(marker), "the maker to start");
  const running = await getLoop(sandbox.context, "slow");
  assert.equal(running.status, "running");
  assert.equal(running.phase, "maker");
  await assert.rejects(deleteLoop(sandbox.context, "slow", alice), LoopBusyError);
  await assert.rejects(resumeLoop(sandbox.context, "slow", alice), LoopBusyError);
  const filed = await cancelLoop(sandbox.context, "slow", alice);
  assert.equal(filed.outcome, "cancel_requested");
  assert.equal((await run.done).code, 130);
  const events = await sandbox.context.store.readEvents(running.id);
  assert.deepEqual(events.find((event) => event.type === "cancel_requested")?.data, { by: alice });
  assert.equal((await getLoop(sandbox.context, "slow")).summary.stopReason, "user_cancelled");
});

test("delete removes the loop, its folder and refs; an unknown loop is LoopNotFoundError", async () => {
  const loop = await findLoop(sandbox.context, "stuck");
  const folder = join(sandbox.home, "loops", loop.id);
  assert.ok(existsSync(folder));
  const removed = await deleteLoop(sandbox.context, "stuck", alice, { branch: true });
  assert.equal(removed.outcome, "deleted");
  assert.equal(removed.branchDeleted, "loop/stuck");
  assert.ok(!existsSync(folder));
  await assert.rejects(findLoop(sandbox.context, "stuck"), LoopNotFoundError);
  await assert.rejects(deleteLoop(sandbox.context, "stuck", alice), LoopNotFoundError);
  await assert.rejects(
    deleteLoop(sandbox.context, "answer", alice, { branch: "yes" } as never),
    (error: unknown) => {
      assert.ok(error instanceof FieldError);
      assert.equal(error.field, "branch");
      return true;
    },
  );
  assert.ok(await findLoop(sandbox.context, "answer"), "a refused delete removed nothing");
});

test("the CLI records the OS user as the actor of steer, pause and resume", async () => {
  const me = { via: "cli", name: userInfo().username };
  const path = await sandbox.spec(exhaustedSpec("cli-stuck"), join(sandbox.root, "cli-stuck.yaml"));
  assert.equal((await sandbox.cli(["run", path])).code, 3);
  const steer = await sandbox.cli(["steer", "cli-stuck", "--budget", "maxIterations=2"]);
  assert.equal(steer.code, 0, steer.stderr);
  const loop = await findLoop(sandbox.context, "cli-stuck");
  const resume = await sandbox.cli(["resume", "cli-stuck"]);
  assert.equal(resume.code, 3, resume.stdout + resume.stderr);
  const events = await sandbox.context.store.readEvents(loop.id);
  assert.deepEqual(events.find((event) => event.type === "steer_requested")?.data.by, me);
  assert.deepEqual(events.find((event) => event.type === "resume_requested")?.data, { by: me });
  const pause = await sandbox.cli(["pause", "cli-stuck"]);
  assert.equal(pause.code, 2);
  assert.match(pause.stderr, /loop cli-stuck is stopped \(budget_exhausted\)/);
});
