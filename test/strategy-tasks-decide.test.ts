/**
 * `strategy: tasks` as pure parts: the three task-list formats, loopwright's tick, the task file's
 * tamper screen, and what `decide` asks for, replayed from in-memory timelines (no IO).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { TaskEntry } from "../src/core/events.ts";
import { expectedTaskFile, taskFileFlags } from "../src/loop/strategies/task-file-flags.ts";
import { parseTaskList, tickTask } from "../src/loop/strategies/task-list.ts";
import type { TasksState } from "../src/loop/strategies/task-state.ts";
import { FakeLoop, fakeSpec } from "./support/fake-loop.ts";

const markdown = `# Export

- [x] Read the data
- [ ] Add the export command
  - prints CSV to stdout
  - [ ] exits 2 on an unknown format
- [ ] Document it

Notes that are not tasks.
`;

const openspec = `## 1. Implementation
- [ ] 1.1 Create the schema
- [ ] 1.2 Implement the endpoint
    - returns 201

## 2. Docs
- [x] 2.1 Write the README
`;

test("Markdown checkboxes, nested criteria; OpenSpec numbers as ids; prd.json stories", () => {
  const parsed = parseTaskList("tasks.md", markdown);
  assert.deepEqual(parsed, {
    ok: true,
    format: "markdown",
    tasks: [
      { id: "1", title: "Read the data", criteria: [], done: true },
      {
        id: "2",
        title: "Add the export command",
        criteria: ["prints CSV to stdout", "exits 2 on an unknown format"],
        done: false,
      },
      { id: "3", title: "Document it", criteria: [], done: false },
    ],
  });
  const spec = parseTaskList("openspec/changes/x/tasks.md", openspec);
  assert.ok(spec.ok);
  assert.deepEqual(
    spec.tasks.map((task) => [task.id, task.criteria, task.done]),
    [
      ["1.1", [], false],
      ["1.2", ["returns 201"], false],
      ["2.1", [], true],
    ],
  );
  const prd = parseTaskList(
    "prd.json",
    JSON.stringify({
      userStories: [{ id: "US-1", title: "Login", acceptanceCriteria: ["a form"], passes: false }],
    }),
  );
  assert.deepEqual(prd, {
    ok: true,
    format: "prd-json",
    tasks: [{ id: "US-1", title: "Login", criteria: ["a form"], done: false }],
  });
});

test("bad or empty task files get a clear problem", () => {
  const problem = (path: string, text: string) => {
    const result = parseTaskList(path, text);
    return result.ok ? "" : result.problem;
  };
  assert.match(
    problem("tasks.md", "# nothing here\n- a plain bullet\n"),
    /no tasks: expected Markdown checkboxes/,
  );
  assert.match(problem("prd.json", "{ nope"), /not valid JSON/);
  assert.match(problem("prd.json", '{"userStories": []}'), /non-empty userStories/);
  assert.match(problem("prd.json", '{"userStories": [{"id": "a"}]}'), /userStories\[0\]\.title: required/);
  assert.match(
    problem("prd.json", '{"userStories": [{"id": "a", "title": "t", "passes": "yes"}]}'),
    /passes: expected true or false/,
  );
  assert.match(problem("tasks.md", "- [ ] 1.1 a\n- [ ] 1.1 b\n"), /two tasks have the id 1.1/);
});

test("loopwright's tick changes only that task's box (or passes), and never ticks twice", () => {
  const ticked = tickTask("tasks.md", markdown, "2");
  assert.equal(ticked, markdown.replace("- [ ] Add the export command", "- [x] Add the export command"));
  assert.equal(tickTask("tasks.md", markdown, "1"), undefined, "already done");
  assert.equal(tickTask("tasks.md", markdown, "9"), undefined);
  assert.match(
    tickTask("t.md", openspec, "1.2") ?? "",
    /- \[x\] 1\.2 Implement the endpoint\n {4}- returns 201/,
  );
  const prd = tickTask("prd.json", '{"userStories":[{"id":"US-1","title":"t","passes":false}]}', "US-1");
  assert.equal(JSON.parse(prd ?? "{}").userStories[0].passes, true);
});

test("the task file's screen: a box loopwright did not tick is blocking until undone, another edit advisory, loopwright's own ticks clean", () => {
  const read = parseTaskList("tasks.md", markdown);
  assert.ok(read.ok);
  const state = (completed: string[]): TasksState => ({
    file: "tasks.md",
    sha: "b".repeat(40),
    format: "markdown",
    tasks: read.tasks.map((task) =>
      completed.includes(task.id)
        ? { ...task, done: true, status: "done", completed: { iteration: 1, sha: "t".repeat(40) } }
        : { ...task, status: task.done ? "done" : "open" },
    ),
  });
  const byMaker = markdown.replace("- [ ] Document it", "- [x] Document it");
  const flags = taskFileFlags(state([]), expectedTaskFile(state([]), markdown), byMaker);
  assert.deepEqual(
    flags.map((flag) => flag.kind),
    ["task-ticked-by-maker"],
  );
  assert.match(flags[0].detail, /3 "Document it" marked done by the maker/);
  const ticked = state(["2"]);
  const expected = expectedTaskFile(ticked, markdown);
  assert.equal(expected, tickTask("tasks.md", markdown, "2"));
  assert.deepEqual(taskFileFlags(ticked, expected, expected), [], "loopwright's tick is not the maker's");
  assert.deepEqual(
    taskFileFlags(ticked, expected, `${expected}- [ ] A new task\n`).map((flag) => flag.kind),
    ["tamper-file"],
  );
  assert.deepEqual(
    taskFileFlags(ticked, expected, undefined).map((flag) => flag.kind),
    ["tamper-file"],
  );
});

const tasks: TaskEntry[] = [
  { id: "1", title: "First", criteria: ["one works"], done: false },
  { id: "2", title: "Second", criteria: [], done: false },
];
const tasksSpec = (strategy: Record<string, unknown> = {}) =>
  fakeSpec({ strategy: { kind: "tasks", file: "tasks.md", ...strategy } });

function readLoop(strategy: Record<string, unknown> = {}): FakeLoop {
  const loop = new FakeLoop(tasksSpec(strategy)).prepared();
  assert.deepEqual(loop.decide(), { kind: "read_tasks" });
  return loop.append("tasks_read", { file: "tasks.md", format: "markdown", sha: "b".repeat(40), tasks });
}

test("each iteration takes the first open task; its criteria are agent-checks; a verified task is ticked, then the next", () => {
  const loop = readLoop();
  assert.deepEqual(loop.decide(), { kind: "start_iteration", iteration: 1 });
  loop.iteration();
  assert.equal(loop.state().iterations[0].task, "1");
  assert.deepEqual(
    loop
      .state()
      .spec.gates.filter((gate) => gate.kind === "agent-check")
      .map((gate) => [gate.id, gate.assert]),
    [["criterion-1", "one works"]],
  );
  loop.makerEnded().committed().screened().gatesPassed().verifierRuled("pass").gatesPassed("confirm");
  loop.endIteration();
  assert.deepEqual(loop.decide(), { kind: "complete_task", iteration: 1, taskId: "1" });
  loop.append("task_completed", { iteration: 1, taskId: "1", sha: "t".repeat(40) });
  assert.equal(
    loop.state().spec.gates.some((gate) => gate.id.startsWith("criterion-")),
    false,
  );
  assert.deepEqual(loop.decide(), { kind: "start_iteration", iteration: 2 });
  loop.iteration();
  assert.deepEqual(
    loop
      .state()
      .spec.gates.filter((gate) => gate.kind === "agent-check")
      .map((gate) => gate.assert),
    ["The task is done: Second"],
    "a task without criteria is its own criterion",
  );
  loop.makerEnded().committed().screened().gatesPassed().verifierRuled("pass").gatesPassed("confirm");
  loop.endIteration();
  loop.append("task_completed", { iteration: 2, taskId: "2", sha: "u".repeat(40) });
  assert.deepEqual(loop.decide(), { kind: "finish" });
});

test("fingerprints are per task: the same change on a new task is progress", () => {
  const loop = readLoop();
  loop.attempt({ diff: "same" });
  loop.append("task_completed", { iteration: 1, taskId: "1", sha: "t".repeat(40) });
  loop.attempt({ diff: "same", failing: ["tests"] });
  assert.equal(loop.state().iterations[1].ended?.repeat, false);
});

test("a task that fails maxAttemptsPerTask times: no_progress naming it, or with onStuck skip blocked and the loop moves on", () => {
  const stop = readLoop({ maxAttemptsPerTask: 2 });
  stop.attempt({ diff: "a", failing: ["tests"] }).attempt({ diff: "b", failing: ["tests"] });
  const action = stop.decide();
  assert.equal(action.kind === "stop" && action.reason, "no_progress");
  assert.match(action.kind === "stop" ? action.message : "", /task 1 "First" failed 2 attempts/);

  const skip = readLoop({ maxAttemptsPerTask: 2, onStuck: "skip" });
  skip.attempt({ diff: "a", failing: ["tests"] }).attempt({ diff: "b", failing: ["tests"] });
  const block = skip.decide();
  assert.equal(block.kind, "block_task");
  const { kind: _kind, ...blocked } = block as Extract<typeof block, { kind: "block_task" }>;
  skip.append("task_blocked", blocked);
  assert.deepEqual(skip.decide(), { kind: "start_iteration", iteration: 3 });
  skip.iteration();
  assert.equal(skip.state().iterations[2].task, "2");
  skip.makerEnded().committed().screened().gatesPassed().verifierRuled("pass").gatesPassed("confirm");
  skip.endIteration();
  skip.append("task_completed", { iteration: 3, taskId: "2", sha: "t".repeat(40) });
  const end = skip.decide();
  assert.equal(end.kind === "stop" && end.reason, "no_progress");
  assert.match(end.kind === "stop" ? end.message : "", /1 of 2 tasks done; blocked: 1 "First"/);
});
