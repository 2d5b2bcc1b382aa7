/**
 * `kill -9` of the controller in the middle of review rounds, then `loopwright resume`: a round left
 * running is closed as interrupted and re-run on the same commit, a maker turn answering a round is
 * re-run from the reviewed commit, and the loop ends as an uninterrupted run does: the same rounds,
 * one commit per maker turn, verified.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { eventsIn, type StreamedEvent } from "./support/loop-timeline.ts";
import { waitFor } from "./support/wait-for.ts";

const onLinux = process.platform === "linux";

const changesThenOk = [
  JSON.stringify({
    verdict: "changes_requested",
    findings: [{ severity: "major", file: "notes.txt", line: 1, message: "remove the note" }],
  }),
  JSON.stringify({ verdict: "ok", findings: [] }),
];

const spec = `name: crashy-review
goal: answer.txt says 42, and no note is left behind.
repo: ./repo
maker:
  engine: scripted
  turns:
    - { write: { answer.txt: "42\\n", notes.txt: "note\\n" } }
    - { delete: [notes.txt] }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
review:
  engine: scripted
  turns: [${changesThenOk.map((answer) => `{ print: ${JSON.stringify(answer)} }`).join(", ")}]
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }
`;

test("kill -9 after each event of a loop with two review rounds, then resume: the same rounds, verified", {
  skip: onLinux ? false : "LOOPWRIGHT_TEST_CRASH_AFTER_EVENT runs are tuned on Linux",
  timeout: 900_000,
}, async () => {
  const count = await eventsOfUninterruptedRun();
  const failures: string[] = [];
  const points = Array.from({ length: count - 1 }, (_, index) => index + 2);
  const queue = [...points];
  const worker = async () => {
    for (let point = queue.shift(); point !== undefined; point = queue.shift()) {
      await crashThenResume(point).catch((error: Error) =>
        failures.push(`after event ${point}: ${error.message}`),
      );
    }
  };
  await Promise.all([worker(), worker()]);
  process.stdout.write(`# ${points.length} crash points, each crashed and resumed\n`);
  // The two rounds and the answering turn between them add 7 events to the same loop without review.
  assert.ok(points.length >= 26, `every step of both rounds is a crash point (${points.length})`);
  assert.deepEqual(failures, []);
});

async function eventsOfUninterruptedRun(): Promise<number> {
  const sandbox = await createSandbox({ "answer.txt": "0\n" });
  try {
    const path = await sandbox.spec(spec);
    const run = await sandbox.cli(["run", path, "--json"]);
    assert.equal(run.code, 0, run.stderr + run.stdout);
    const events = eventsIn(run.stdout);
    await assertSameOutcome(sandbox, events);
    return events.at(-1)?.seq ?? 0;
  } finally {
    await sandbox.cleanup();
  }
}

async function crashThenResume(crashAfter: number): Promise<void> {
  const sandbox = await createSandbox({ "answer.txt": "0\n" });
  try {
    const path = await sandbox.spec(spec);
    const child = sandbox.spawnCli(["run", path, "--json"], {
      env: { LOOPWRIGHT_TEST_CRASH_AFTER_EVENT: String(crashAfter) },
    });
    await child.done;
    assert.equal(child.signalCode, "SIGKILL", "the run was killed");
    const resume = await sandbox.cli(["resume", "crashy-review", "--json"], { timeoutMs: 60_000 });
    assert.equal(resume.code, 0, resume.stderr + resume.stdout.slice(-3000));
    await assertSameOutcome(sandbox, eventsIn(resume.stdout));
  } finally {
    await sandbox.cleanup();
  }
}

/** Verified in one iteration; the last ending of each round: changes requested, then ok; two commits. */
async function assertSameOutcome(sandbox: Sandbox, events: StreamedEvent[]): Promise<void> {
  assert.equal(events.filter((event) => event.type === "loop_stopped").at(-1)?.data.reason, "verified");
  const lastOfRound = new Map<number, unknown>();
  for (const event of events.filter((candidate) => candidate.type === "review_ended")) {
    if (event.data.status !== "interrupted") lastOfRound.set(Number(event.data.round), event.data.verdict);
  }
  assert.deepEqual(
    [...lastOfRound.entries()],
    [
      [1, "changes_requested"],
      [2, "ok"],
    ],
  );
  assert.deepEqual(
    events.filter((event) => event.type === "iteration_ended").map((event) => event.data.outcome),
    ["verified"],
  );
  assert.deepEqual((await sandbox.git("log", "--format=%s", "main..loop/crashy-review")).split("\n"), [
    "loopwright: crashy-review iteration 1, answering review round 1",
    "loopwright: crashy-review iteration 1",
  ]);
  assert.equal(await sandbox.git("ls-tree", "--name-only", "loop/crashy-review"), "answer.txt");
}

test("kill -9 while the reviewer works: resume closes the round as interrupted and reviews the same commit again", {
  skip: onLinux ? false : "needs /proc",
  timeout: 120_000,
}, async () => {
  const sandbox = await createSandbox({ "answer.txt": "0\n" });
  try {
    const slept = join(sandbox.root, "reviewer-slept");
    await writeFile(
      join(sandbox.root, "reviewer.sh"),
      `#!/bin/sh
if [ ! -e ${slept} ]; then touch ${slept}; sleep 30; fi
echo '{"verdict":"ok","findings":[]}'
`,
      { mode: 0o755 },
    );
    const path = await sandbox.spec(
      spec.replace(
        /review:\n {2}engine: scripted\n {2}turns: .*\n/,
        "review: { engine: command, run: ./reviewer.sh }\n",
      ),
    );
    const child = sandbox.spawnCli(["run", path, "--json"]);
    await waitFor(() => existsSync(slept), "the reviewer to start");
    child.kill("SIGKILL");
    await child.done;
    const resume = await sandbox.cli(["resume", "crashy-review", "--json"], { timeoutMs: 60_000 });
    assert.equal(resume.code, 0, resume.stderr + resume.stdout.slice(-3000));
    const events = eventsIn(resume.stdout);
    const rounds = events
      .filter((event) => event.type === "review_ended")
      .map((event) => `${event.data.round}:${event.data.status}`);
    assert.deepEqual(rounds, ["1:interrupted", "1:reviewed"]);
    const reviewed = events.filter((event) => event.type === "review_started").map((event) => event.data.sha);
    assert.equal(reviewed.length, 2);
    assert.equal(reviewed[0], reviewed[1], "the same commit reviewed again");
    assert.equal(events.filter((event) => event.type === "loop_stopped").at(-1)?.data.reason, "verified");
    assert.equal(await sandbox.git("rev-list", "--count", "main..loop/crashy-review"), "1");
  } finally {
    await sandbox.cleanup();
  }
});
