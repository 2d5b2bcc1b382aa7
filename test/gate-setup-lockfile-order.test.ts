/**
 * Setup runs again in the gates' checkout when the iteration changed a lockfile, whatever step comes
 * between the commit and the gates (a review round) and across a kill and resume: review finding on an
 * early gates' checkout (since reverted) that let gates grade a commit with the previous commit's install.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { eventsIn } from "./support/loop-timeline.ts";

let sandbox: Sandbox;
before(async () => {
  sandbox = await createSandbox({
    "README.md": "# repo\n",
    "package-lock.json": "good\n",
    ".gitignore": "installed\n",
  });
});
after(() => sandbox.cleanup());

const ok = `{ print: ${JSON.stringify(JSON.stringify({ verdict: "ok", findings: [] }))} }`;

function spec(name: string, review: boolean) {
  return `name: ${name}
goal: bump the dependency.
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { package-lock.json: "broken\\n" }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
${review ? `review:\n  engine: scripted\n  turns: [${ok}]\n` : ""}setup:
  - cp package-lock.json installed
gates:
  - { id: deps, kind: tests-pass, run: "grep -qx good installed" }
budget: { maxIterations: 1 }
`;
}

for (const review of [false, true]) {
  test(`a changed lockfile re-runs setup before the gates (review: ${review})`, async () => {
    const name = review ? "with-review" : "without-review";
    const path = await sandbox.spec(spec(name, review), join(sandbox.root, `${name}.yaml`));
    const result = await sandbox.cli(["run", path, "--json"]);
    const events = eventsIn(result.stdout);
    const stop = events.find((event) => event.type === "loop_stopped")?.data as { reason?: string };
    const gatesSetups = events.filter(
      (e) => e.type === "setup_ran" && String((e.data as { worktree: string }).worktree).endsWith("/gates"),
    ).length;
    assert.ok(stop?.reason, `${name}: the loop stopped (exit ${result.code})`);
    assert.equal(
      gatesSetups,
      2,
      `${name}: setup in the gates' checkout for the base and for the new lockfile`,
    );
    // The graded commit's lockfile says "broken": with its dependencies installed, the gate is red.
    const grade = events.find(
      (e) => e.type === "gate_ended" && (e.data as { result: { phase: string } }).result.phase === "grade",
    );
    assert.ok(grade, "the iteration graded its commit");
    assert.equal(
      (grade.data as { result: { passed: boolean } }).result.passed,
      false,
      `${name}: graded with stale dependencies`,
    );
  });
}

test("kill -9 after the change was screened, then resume: setup runs again for the changed lockfile", async () => {
  const name = "crashy";
  const path = await sandbox.spec(spec(name, false), join(sandbox.root, `${name}.yaml`));
  // Where change_screened falls, from a run of the same loop under another name.
  const probePath = await sandbox.spec(spec("probe", false), join(sandbox.root, "probe.yaml"));
  const probe = eventsIn((await sandbox.cli(["run", probePath, "--json"])).stdout);
  const seq = probe.find((event) => event.type === "change_screened")?.seq;
  assert.ok(seq);
  const crashed = await sandbox.cli(["run", path, "--json"], {
    env: { LOOPWRIGHT_TEST_CRASH_AFTER_EVENT: String(seq) },
  });
  const crashedEvents = eventsIn(crashed.stdout);
  assert.equal(crashedEvents.at(-1)?.type, "change_screened", "killed right after the screen");
  const resumed = await sandbox.cli(["resume", name, "--json"], { timeoutMs: 60_000 });
  const events = eventsIn(resumed.stdout);
  const grade = events.find(
    (e) => e.type === "gate_ended" && (e.data as { result: { phase: string } }).result.phase === "grade",
  );
  assert.ok(grade, "the iteration graded its commit");
  assert.equal(
    (grade.data as { result: { passed: boolean } }).result.passed,
    false,
    "graded with stale dependencies",
  );
});
