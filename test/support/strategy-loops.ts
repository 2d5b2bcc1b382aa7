/**
 * One repository holding a loop of each strategy, fast and scripted, shared by the dashboard's page tests
 * and the service's: a racy `node --test` suite the maker fixes at once (streak), a 4-task Markdown list
 * whose second task breaks a gate (tasks), and a noisy score lowered over 4 attempts (metric; the
 * counter outside the repository rotates the noise through 0, +0.01, -0.01, so the noise floor is 0.01).
 */
import { join } from "node:path";
import type { Sandbox } from "./loop-sandbox.ts";

/** The counters the racy test and the score keep outside the repository. */
export function strategyEnv(sandbox: Sandbox): NodeJS.ProcessEnv {
  return { RACE_FILE: join(sandbox.root, "race-count"), METRIC_COUNTER: join(sandbox.root, "metric-count") };
}

const racyTotal = `import { readFileSync, writeFileSync } from "node:fs";

/** Who writes last decides the total: every third caller loses the race. */
export function total() {
  const file = process.env.RACE_FILE;
  let count = 0;
  try {
    count = Number(readFileSync(file, "utf8")) || 0;
  } catch {}
  writeFileSync(file, String(count + 1));
  return (count + 1) % 3 === 2 ? 41 : 42;
}
`;

const params = (value: number) => `{\n  "value": ${value},\n  "seed": 1\n}\n`;

export const strategyFiles = {
  "package.json": '{ "type": "module" }\n',
  "src/total.js": racyTotal,
  "test/total.test.js": `import assert from "node:assert/strict";
import { test } from "node:test";
import { total } from "../src/total.js";

test("racy total", () => {
  assert.equal(total(), 42);
});
`,
  "tasks.md": `# Numbers

- [ ] Write one.txt
  - one.txt says one
- [ ] Write two.txt
  - two.txt says two
- [ ] Write three.txt
  - three.txt says three
- [ ] Write four.txt
  - four.txt says four
  - nothing else changes
`,
  "params.json": params(1.0),
  "score.cjs": `const { readFileSync, writeFileSync } = require("node:fs");
const { value } = JSON.parse(readFileSync("params.json", "utf8"));
const file = process.env.METRIC_COUNTER;
let count = 0;
try { count = Number(readFileSync(file, "utf8")) || 0; } catch {}
writeFileSync(file, String(count + 1));
const jitter = [0, 0.01, -0.01][(count + 1) % 3];
console.log("score: " + (value + jitter).toFixed(4));
`,
};

export const streakSpec = `name: racy
goal: The suite passes every time.
repo: ./repo
strategy: { kind: streak, passes: 3, maxRuns: 12 }
maker:
  engine: scripted
  turns:
    - say: "fix: total no longer reads shared state"
      write: { src/total.js: "export function total() {\\n  return 42;\\n}\\n" }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: suite, kind: tests-pass, run: "node --test" }
budget: { maxIterations: 3 }
`;

/** The 4-task list; `finish` adds a fourth turn (four.txt) so the list ends with task 2 blocked, the rest done. */
export const tasksSpec = (name = "numbers", finish = false) => `name: ${name}
goal: Write the number files the task list asks for.
repo: ./repo
strategy: { kind: tasks, file: tasks.md, maxAttemptsPerTask: 1, onStuck: skip }
maker:
  engine: scripted
  turns:
    - { say: "wrote one", write: { one.txt: "one\\n" } }
    - { say: "broke it", write: { broken.txt: "oops\\n" } }
    - { say: "wrote three, removed the breakage", delete: [broken.txt], write: { three.txt: "three\\n" } }${finish ? '\n    - { say: "wrote four", write: { four.txt: "four\\n" } }' : ""}
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: intact, kind: build-succeeds, run: "test ! -e broken.txt" }
budget: { maxIterations: ${finish ? 4 : 3} }
`;

const attempts = [params(0.9), params(0.895), params(0.8), params(0.85)];
/** Four attempts (0.9, 0.895, 0.8, 0.85 against a base of 1.0); `target` is spec text such as `, target: 0.85`. */
export const metricSpec = (name = "tune", target = "") => `name: ${name}
goal: Lower the score that score.cjs prints.
repo: ./repo
strategy: { kind: metric, run: "node score.cjs", pattern: "score: ([0-9.]+)", direction: minimize, samples: 3, plateau: 0${target} }
maker:
  engine: scripted
  turns:
${attempts.map((text, index) => `    - { say: "attempt ${index + 1}", write: { params.json: ${JSON.stringify(text)} } }`).join("\n")}
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: valid, kind: build-succeeds, run: "node -e 'JSON.parse(require(\\"fs\\").readFileSync(\\"params.json\\", \\"utf8\\"))'" }
budget: { maxIterations: 4 }
`;
