/**
 * The application layer's reads on real loops in a real store: list, detail, iterations, timeline pages,
 * brief, diff per file, report; every answer checked against the schema the API publishes, and bad input
 * refused with the field named.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { getBrief } from "../src/app/brief.ts";
import { getIterationDiff } from "../src/app/iteration-diff.ts";
import { getIteration, listIterations } from "../src/app/iterations.ts";
import { listLoops } from "../src/app/list-loops.ts";
import { createLoopCache } from "../src/app/loop-cache.ts";
import { getLoop } from "../src/app/loop-detail.ts";
import { getReportData, getReportMarkdown } from "../src/app/loop-report.ts";
import { briefSchema, iterationDiffSchema } from "../src/app/schemas/file-schemas.ts";
import { iterationDetailSchema, iterationListSchema } from "../src/app/schemas/iteration-schemas.ts";
import { loopDetailSchema, loopListSchema } from "../src/app/schemas/loop-schemas.ts";
import { loopReportMarkdownSchema, loopReportSchema } from "../src/app/schemas/report-schemas.ts";
import { timelinePageSchema } from "../src/app/schemas/timeline-schemas.ts";
import { steerLoop } from "../src/app/steer-loop.ts";
import { readTimelinePage } from "../src/app/timeline-page.ts";
import { FieldError, LoopNotFoundError } from "../src/errors.ts";
import { type AppSandbox, createAppSandbox, exhaustedSpec, verifiedSpec } from "./support/app-loops.ts";

let sandbox: AppSandbox;

before(async () => {
  sandbox = await createAppSandbox({ "README.md": "# sandbox\n", "src/keep.txt": "keep\n" });
  await sandbox.runLoop("answer", verifiedSpec("answer"), 0);
  await sandbox.runLoop("stuck", exhaustedSpec("stuck"), 3);
});

after(async () => {
  await sandbox.cleanup();
});

test("the loops list: display status, stop description, iterations, cost, a strip of outcomes", async () => {
  const list = loopListSchema.parse(await listLoops(sandbox.context));
  assert.deepEqual(list.warnings, []);
  assert.deepEqual(
    list.loops.map((loop) => [loop.name, loop.status, loop.stopDescription, loop.iterations, loop.outcomes]),
    [
      ["stuck", "stopped", "budget_exhausted", 1, ["failed"]],
      ["answer", "stopped", "verified", 1, ["verified"]],
    ],
  );
  assert.equal(list.loops[0].queuePosition, null);
  assert.equal(list.loops[0].maxIterations, 1);
  assert.equal(list.loops[0].phase, null);
  const mine = await listLoops(sandbox.context, { repoRoot: sandbox.repo });
  assert.equal(mine.loops.length, 2);
  assert.equal((await listLoops(sandbox.context, { repoRoot: "/elsewhere" })).loops.length, 0);
});

test("loop detail by name or id, with its summary; an unknown loop is LoopNotFoundError", async () => {
  const byName = loopDetailSchema.parse(await getLoop(sandbox.context, "answer"));
  assert.equal(byName.status, "stopped");
  assert.equal(byName.summary.verifiedAs, "verified");
  assert.equal(byName.goal, "answer.txt says 42.");
  assert.equal(byName.queued, null);
  const byId = await getLoop(sandbox.context, byName.id);
  assert.equal(byId.name, "answer");
  await assert.rejects(getLoop(sandbox.context, "nope"), LoopNotFoundError);
  await assert.rejects(getLoop({ ...sandbox.context, repoRoot: sandbox.repo }, "nope"), (error: unknown) => {
    assert.ok(error instanceof LoopNotFoundError);
    assert.match(error.message, new RegExp(`no loop named or with id 'nope' in ${sandbox.repo}`));
    return true;
  });
});

test("iterations in brief and in full: brief as sent, commit, screen, every gate run, verdict, claimed account", async () => {
  const list = iterationListSchema.parse(await listIterations(sandbox.context, "answer"));
  assert.deepEqual(
    list.iterations.map((iteration) => iteration.outcome),
    ["verified"],
  );
  const detail = iterationDetailSchema.parse(await getIteration(sandbox.context, "answer", 1));
  assert.match(detail.brief, /answer\.txt says 42/);
  assert.deepEqual(detail.commit?.files, ["answer.txt"]);
  assert.deepEqual(detail.screen?.changedFiles, ["answer.txt"]);
  assert.ok(detail.gates.some((gate) => gate.id === "done" && gate.phase === "grade" && gate.passed));
  assert.equal(detail.verifier?.verdict?.overall, "pass");
  assert.equal(detail.maker?.status, "completed");
  await assert.rejects(getIteration(sandbox.context, "answer", 7), (error: unknown) => {
    assert.ok(error instanceof FieldError);
    assert.equal(error.field, "iteration");
    assert.match(error.message, /loop answer has no iteration 7/);
    return true;
  });
});

test("the timeline page by page: every event once, in order, with a cursor to go on from", async () => {
  const seen: number[] = [];
  let cursor = 0;
  for (let pages = 0; pages < 100; pages++) {
    const page = timelinePageSchema.parse(
      await readTimelinePage(sandbox.context, "answer", { after: cursor, limit: 4 }),
    );
    seen.push(...page.events.map((event) => event.id));
    cursor = page.nextAfter;
    if (!page.hasMore) break;
  }
  const all = await sandbox.context.store.readEvents((await getLoop(sandbox.context, "answer")).id);
  assert.deepEqual(
    seen,
    all.map((event) => event.id),
  );
  assert.ok(
    seen.every((id, index) => index === 0 || id > seen[index - 1]),
    "ids strictly increase",
  );
  const end = await readTimelinePage(sandbox.context, "answer", { after: cursor });
  assert.deepEqual(end.events, []);
  assert.equal(end.nextAfter, cursor);
  assert.equal(end.hasMore, false);
  for (const [request, field] of [
    [{ limit: 0 }, "limit"],
    [{ limit: 5000 }, "limit"],
    [{ after: -1 }, "after"],
    [{ after: "x" }, "after"],
    [{ limit: 3, color: "red" }, "color"],
  ] as const) {
    await assert.rejects(readTimelinePage(sandbox.context, "answer", request as never), (error: unknown) => {
      assert.ok(error instanceof FieldError, String(error));
      assert.equal(error.field, field);
      return true;
    });
  }
});

test("brief: the latest or a numbered one; iteration 0 and unknown numbers are refused on the field", async () => {
  const latest = briefSchema.parse(await getBrief(sandbox.context, "answer"));
  assert.equal(latest.iteration, 1);
  assert.match(latest.brief, /grep -qx 42 answer\.txt/);
  for (const iteration of [0, 9]) {
    await assert.rejects(getBrief(sandbox.context, "answer", { iteration }), (error: unknown) => {
      assert.ok(error instanceof FieldError);
      assert.equal(error.field, "iteration");
      return true;
    });
  }
  await assert.rejects(getBrief(sandbox.context, "answer", { iteration: -2 }), FieldError);
});

test("diff per file: status, counts, the file's patch; one file by path; a file not changed is refused", async () => {
  const diff = iterationDiffSchema.parse(await getIterationDiff(sandbox.context, "answer", { iteration: 1 }));
  assert.equal(diff.files.length, 1);
  const [file] = diff.files;
  assert.equal(file.path, "answer.txt");
  assert.equal(file.status, "added");
  assert.equal(file.additions, 1);
  assert.equal(file.deletions, 0);
  assert.equal(file.scopeViolation, null);
  assert.match(file.patch, /^diff --git a\/answer\.txt b\/answer\.txt\n[\s\S]*\+42\n$/);
  const one = await getIterationDiff(sandbox.context, "answer", { iteration: 1, file: "answer.txt" });
  assert.equal(one.files.length, 1);
  await assert.rejects(
    getIterationDiff(sandbox.context, "answer", { iteration: 1, file: "README.md" }),
    (error: unknown) => error instanceof FieldError && error.field === "file",
  );
  await assert.rejects(
    getIterationDiff(sandbox.context, "answer", { iteration: 0 }),
    (error: unknown) => error instanceof FieldError && error.field === "iteration",
  );
  await assert.rejects(
    getIterationDiff(sandbox.context, "answer", {} as never),
    (error: unknown) => error instanceof FieldError && error.field === "iteration",
  );
});

test("report in Markdown and as data, as `report` prints them", async () => {
  const markdown = loopReportMarkdownSchema.parse(await getReportMarkdown(sandbox.context, "stuck"));
  assert.match(markdown.markdown, /^# Loop stuck\n/);
  assert.match(markdown.markdown, /\*\*budget_exhausted\*\*/);
  const data = loopReportSchema.parse(await getReportData(sandbox.context, "answer"));
  assert.equal(data.goal, "answer.txt says 42.");
  assert.equal(data.verdict?.overall, "pass");
  assert.deepEqual(
    data.gateStandings.map((standing) => [standing.id, standing.passedOnBase]),
    [["done", false]],
  );
  const cli = await sandbox.cli(["report", "answer", "--json"]);
  assert.equal(cli.code, 0, cli.stderr);
  assert.deepEqual(JSON.parse(cli.stdout), JSON.parse(JSON.stringify(data)));
});

test("a loop whose spec snapshot is unreadable is listed as damaged, named in warnings, and hides nothing", async () => {
  const other = await createAppSandbox();
  try {
    await other.runLoop("fine", verifiedSpec("fine"), 0);
    const { DatabaseSync } = await import("node:sqlite");
    const database = new DatabaseSync(`${other.home}/loopwright.db`);
    database.exec(
      "INSERT INTO loops SELECT 'broken-id', 'broken', repo_root, spec_path, 'null', created_at FROM loops",
    );
    database.close();
    const list = await listLoops(other.context);
    assert.deepEqual(list.loops.map((loop) => [loop.name, loop.status]).sort(), [
      ["broken", "damaged"],
      ["fine", "stopped"],
    ]);
    assert.equal(list.warnings.length, 1);
    assert.match(list.warnings[0], /loop broken \(broken-id\) is damaged/);
    await assert.rejects(getLoop(other.context, "broken"), /no readable spec snapshot/);
  } finally {
    await other.cleanup();
  }
});

test("a long-lived context's cache answers exactly as a fresh replay, after new events too", async () => {
  const cached = { ...sandbox.context, cache: createLoopCache() };
  assert.deepEqual(await listLoops(cached), await listLoops(sandbox.context));
  assert.deepEqual(await getLoop(cached, "stuck"), await getLoop(sandbox.context, "stuck"));
  await steerLoop(cached, "stuck", { goal: "a new goal" }, { via: "web", name: "alice" });
  const after = await getLoop(cached, "stuck");
  assert.equal(after.pendingSteers, 1);
  assert.deepEqual(after, await getLoop(sandbox.context, "stuck"));
  assert.deepEqual(await listLoops(cached), await listLoops(sandbox.context));
  const page = await readTimelinePage(cached, "stuck", { after: 0, limit: 1000 });
  assert.equal(page.events.at(-1)?.type, "steer_requested");
});

test("concurrent first reads of a loop through the cache replay its timeline once, and miss no event", async () => {
  const whole: string[] = [];
  const store = sandbox.context.store;
  // The store's methods bound to it (it keeps private fields), its whole-timeline reads counted.
  const counting = new Proxy(store, {
    get(target, key) {
      if (key === "readEvents")
        return (loopId: string, afterSeq?: number) => {
          if (!afterSeq) whole.push(loopId);
          return target.readEvents(loopId, afterSeq);
        };
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const cached = { ...sandbox.context, store: counting, cache: createLoopCache() };
  const fresh = await getLoop(sandbox.context, "answer");
  const reads = await Promise.all(Array.from({ length: 8 }, () => getLoop(cached, "answer")));
  for (const read of reads) assert.deepEqual(read, fresh);
  assert.equal(whole.length, 1, `whole replays: ${whole.length}`);
  // A read that starts while the first is under way still sees an event appended before it asked.
  const other = { ...sandbox.context, store: counting, cache: createLoopCache() };
  const first = getLoop(other, "stuck");
  await steerLoop(
    sandbox.context,
    "stuck",
    { goal: "steered while the first read ran" },
    { via: "cli", name: "t" },
  );
  const second = await getLoop(other, "stuck");
  await first;
  assert.deepEqual(second, await getLoop(sandbox.context, "stuck"));
});
