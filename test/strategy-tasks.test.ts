/**
 * `strategy: tasks` end to end: the real CLI, real git, the scripted maker and verifier. A 3-task
 * Markdown list done in 3 iterations, each box ticked by loopwright's own commit; a maker that ticks a
 * box itself is flagged (blocking) until it undoes the tick; a prd.json list; a bad list stops at
 * preflight; and kill -9 in the middle, then resume, ticks each task exactly once.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { eventsIn, type StreamedEvent } from "./support/loop-timeline.ts";

const taskList = `# Numbers

- [ ] Write one.txt
  - one.txt says one
- [ ] Write two.txt
  - two.txt says two
- [ ] Write three.txt
  - three.txt says three
`;

const threeTurns = `    - { say: "wrote one", write: { one.txt: "one\\n" } }
    - { say: "wrote two", write: { two.txt: "two\\n" } }
    - { say: "wrote three", write: { three.txt: "three\\n" } }`;

function specWith(turns: string, file = "tasks.md", name = "numbers"): string {
  return `name: ${name}
goal: Write the number files the task list asks for.
repo: ./repo
strategy: { kind: tasks, file: ${file} }
maker:
  engine: scripted
  turns:
${turns}
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: intact, kind: build-succeeds, run: "test ! -e broken.txt" }
budget: { maxIterations: 6 }
`;
}

function of(events: StreamedEvent[], type: string): StreamedEvent[] {
  return events.filter((event) => event.type === type);
}

async function subjects(sandbox: Sandbox, name: string): Promise<string[]> {
  return (await sandbox.git("log", "--reverse", "--format=%s", `main..loop/${name}`)).split("\n");
}

test("a 3-task Markdown list is done in 3 iterations, each box ticked by loopwright's own commit", {
  timeout: 180_000,
}, async () => {
  const sandbox = await createSandbox({ "tasks.md": taskList });
  try {
    const run = await sandbox.cli(["run", await sandbox.spec(specWith(threeTurns)), "--json"]);
    assert.equal(run.code, 0, run.stderr);
    const events = eventsIn(run.stdout);
    assert.equal(of(events, "loop_stopped").at(-1)?.data.reason, "verified");
    assert.match(
      String(of(events, "loop_stopped").at(-1)?.data.message),
      /every task in tasks.md is done \(3\)/,
    );
    assert.deepEqual(
      of(events, "iteration_ended").map((event) => event.data.outcome),
      ["verified", "verified", "verified"],
    );
    assert.deepEqual(
      of(events, "task_completed").map((event) => event.data.taskId),
      ["1", "2", "3"],
    );
    assert.deepEqual(await subjects(sandbox, "numbers"), [
      "loopwright: numbers iteration 1",
      "loopwright: numbers task 1 done: Write one.txt",
      "loopwright: numbers iteration 2",
      "loopwright: numbers task 2 done: Write two.txt",
      "loopwright: numbers iteration 3",
      "loopwright: numbers task 3 done: Write three.txt",
    ]);
    for (const completed of of(events, "task_completed")) {
      const sha = String(completed.data.sha);
      assert.equal(
        await sandbox.git("show", "--format=", "--name-only", sha),
        "tasks.md",
        "a tick commit holds the tick only",
      );
      assert.match(
        await sandbox.git("show", "-s", "--format=%(trailers:key=Loopwright-Task,valueonly)", sha),
        new RegExp(`^${completed.data.taskId}$`),
      );
    }
    assert.equal(
      await sandbox.git("show", "loop/numbers:tasks.md"),
      taskList.replaceAll("- [ ]", "- [x]").trimEnd(),
    );
    assert.equal(
      await sandbox.git("show", "main:tasks.md"),
      taskList.trimEnd(),
      "the user's branch is untouched",
    );

    // The brief carries this iteration's task and its criteria, not the whole list.
    const second = String(of(events, "iteration_started")[1].data.brief);
    assert.match(second, /## Your task: Write two.txt\nTask 2 \(2 of 3 in tasks.md\)/);
    assert.match(second, /- criterion-1: two.txt says two/);
    assert.doesNotMatch(second, /three/);
    // The verifier ruled on the criterion as an agent-check.
    const verdict = of(events, "verifier_ended")[1].data.verdict as {
      gates: { id: string; passed: boolean }[];
    };
    assert.deepEqual(
      verdict.gates.map((ruling) => `${ruling.id}:${ruling.passed}`),
      ["intact:true", "criterion-1:true"],
    );
    const report = await sandbox.cli(["report", "numbers"]);
    assert.match(report.stdout, /## Tasks\n\n3 of 3 tasks done in `tasks.md`/);
    assert.match(report.stdout, /\| 2 Write two.txt \| done \| 2 \| 1 \| `[0-9a-f]{10}` \|/);
  } finally {
    await sandbox.cleanup();
  }
});

test("a maker that ticks a box itself is flagged, blocking, until it undoes the tick", {
  timeout: 180_000,
}, async () => {
  const sandbox = await createSandbox({ "tasks.md": taskList });
  try {
    const ticked = taskList.replace("- [ ] Write one.txt", "- [x] Write one.txt");
    const turns = `    - { say: "wrote one and ticked it", write: { one.txt: "one\\n", tasks.md: ${JSON.stringify(ticked)} } }
    - { say: "undid my tick", write: { one.txt: "one\\n", tasks.md: ${JSON.stringify(taskList)} } }
    - { say: "wrote two", write: { two.txt: "two\\n" } }
    - { say: "wrote three", write: { three.txt: "three\\n" } }`;
    const run = await sandbox.cli(["run", await sandbox.spec(specWith(turns)), "--json"]);
    assert.equal(run.code, 0, run.stderr);
    const events = eventsIn(run.stdout);
    const flags = of(events, "tamper_flagged").map(
      (event) => event.data.flag as { kind: string; detail: string },
    );
    assert.deepEqual(
      flags.map((flag) => flag.kind),
      ["task-ticked-by-maker"],
    );
    assert.match(flags[0].detail, /1 "Write one.txt" marked done by the maker/);
    const ended = of(events, "iteration_ended");
    assert.deepEqual(
      ended.map((event) => event.data.outcome),
      ["failed", "verified", "verified", "verified"],
    );
    assert.deepEqual(ended[0].data.failingGates, ["tamper"]);
    assert.equal(
      of(events, "verifier_started").filter((event) => event.data.iteration === 1).length,
      0,
      "loopwright decided, not the verifier",
    );
    assert.match(String(of(events, "iteration_started")[1].data.brief), /Tamper flag .*BLOCKING/);
    assert.equal(of(events, "task_completed").length, 3);
  } finally {
    await sandbox.cleanup();
  }
});

test("a prd.json list: stories in order, passes set by loopwright", { timeout: 180_000 }, async () => {
  const prd = {
    branchName: "numbers",
    userStories: [
      { id: "US-1", title: "Write one.txt", acceptanceCriteria: ["one.txt says one"], passes: false },
      { id: "US-2", title: "Write two.txt", acceptanceCriteria: ["two.txt says two"], passes: false },
    ],
  };
  const sandbox = await createSandbox({ "prd.json": `${JSON.stringify(prd, null, 2)}\n` });
  try {
    const turns = threeTurns.split("\n").slice(0, 2).join("\n");
    const run = await sandbox.cli(["run", await sandbox.spec(specWith(turns, "prd.json")), "--json"]);
    assert.equal(run.code, 0, run.stderr);
    const events = eventsIn(run.stdout);
    assert.deepEqual(
      of(events, "task_completed").map((event) => event.data.taskId),
      ["US-1", "US-2"],
    );
    assert.match(
      String(of(events, "iteration_started")[0].data.brief),
      /## Your task: Write one.txt\nTask US-1/,
    );
    const final = JSON.parse(await sandbox.git("show", "loop/numbers:prd.json"));
    assert.deepEqual(
      final.userStories.map((story: { passes: boolean }) => story.passes),
      [true, true],
    );
    assert.equal(final.branchName, "numbers", "the rest of the file is kept");
  } finally {
    await sandbox.cleanup();
  }
});

test("bad or empty task lists stop before anything is created, with the file and the reason", {
  timeout: 60_000,
}, async () => {
  const sandbox = await createSandbox({
    "empty.md": "# Nothing to do\n- a bullet\n",
    "done.md": "- [x] all done\n",
    "bad.json": "{ nope",
  });
  try {
    for (const [file, problem] of [
      ["empty.md", /strategy.file: empty.md: no tasks: expected Markdown checkboxes/],
      ["done.md", /strategy.file: done.md: every task is already done: nothing to do/],
      ["bad.json", /strategy.file: bad.json: not valid JSON/],
      ["missing.md", /strategy.file: missing.md is not in the base commit/],
    ] as const) {
      const run = await sandbox.cli(["run", await sandbox.spec(specWith(threeTurns, file))]);
      assert.notEqual(run.code, 0, file);
      assert.match(run.stderr, problem);
    }
    const list = await sandbox.cli(["ls", "--json"]);
    assert.deepEqual(JSON.parse(list.stdout || "[]"), [], "no loop was created");
  } finally {
    await sandbox.cleanup();
  }
});

test("kill -9 in the middle of a tasks loop, then resume: every task ticked exactly once, verified", {
  skip: process.platform === "linux" ? false : "crash runs are tuned on Linux",
  timeout: 600_000,
}, async () => {
  const reference = await createSandbox({ "tasks.md": taskList });
  let events: StreamedEvent[];
  try {
    const run = await reference.cli(["run", await reference.spec(specWith(threeTurns)), "--json"]);
    assert.equal(run.code, 0, run.stderr);
    events = eventsIn(run.stdout);
  } finally {
    await reference.cleanup();
  }
  const seqOf = (type: string, iteration: number) => {
    const found = events.find((event) => event.type === type && event.data.iteration === iteration);
    assert.ok(found, `${type} of iteration ${iteration}`);
    return found.seq;
  };
  const crashPoints = {
    "after iteration 1 verified, before the tick": seqOf("iteration_ended", 1),
    "right after the tick of task 1": seqOf("task_completed", 1),
    "during iteration 2's maker": seqOf("maker_started", 2),
    "during iteration 3's gates": seqOf("gate_started", 3),
  };
  for (const [where, crashAfter] of Object.entries(crashPoints)) {
    const sandbox = await createSandbox({ "tasks.md": taskList });
    try {
      const child = sandbox.spawnCli(["run", await sandbox.spec(specWith(threeTurns)), "--json"], {
        env: { LOOPWRIGHT_TEST_CRASH_AFTER_EVENT: String(crashAfter) },
      });
      await child.done;
      assert.equal(child.signalCode, "SIGKILL", `${where}: the run was not killed`);
      const resume = await sandbox.cli(["resume", "numbers", "--json"], { timeoutMs: 120_000 });
      assert.equal(resume.code, 0, `${where}: ${resume.stderr}`);
      const resumed = eventsIn(resume.stdout);
      assert.deepEqual(
        of(resumed, "task_completed").map((event) => event.data.taskId),
        ["1", "2", "3"],
        where,
      );
      assert.deepEqual(
        await subjects(sandbox, "numbers"),
        [
          "loopwright: numbers iteration 1",
          "loopwright: numbers task 1 done: Write one.txt",
          "loopwright: numbers iteration 2",
          "loopwright: numbers task 2 done: Write two.txt",
          "loopwright: numbers iteration 3",
          "loopwright: numbers task 3 done: Write three.txt",
        ],
        where,
      );
      assert.equal(of(resumed, "loop_stopped").at(-1)?.data.reason, "verified", where);
    } finally {
      await sandbox.cleanup();
    }
  }
});
