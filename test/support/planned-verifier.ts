/**
 * A verifier that misbehaves to plan, on the adversarial project: each loop's maker fixes the bug for
 * real, and the command-engine verifier rules as `VERIFIER_PLAN` says, wrong on purpose or right.
 */
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fixedCalc, type LoopRun, runLoop, testsGate } from "./adversarial-project.ts";
import type { Sandbox } from "./loop-sandbox.ts";

/**
 * A command-engine verifier that misbehaves on purpose. `VERIFIER_PLAN` maps each iteration to what it
 * does on its first attempt and on the corrective retry (`1:garbage,correct 2:...`). It keeps every
 * prompt it is sent in `$PROBE_DIR/prompt-<iteration>-<first|retry>.md`.
 */
const plannedVerifier = `#!/bin/sh
attempt=first
prompt="$PROBE_DIR/prompt-$LOOPWRIGHT_ITERATION-first.md"
if [ -e "$prompt" ]; then attempt=retry; prompt="$PROBE_DIR/prompt-$LOOPWRIGHT_ITERATION-retry.md"; fi
cat > "$prompt"
exec node -e '
const context = require(process.env.LOOPWRIGHT_CONTEXT_FILE);
const plan = Object.fromEntries(process.env.VERIFIER_PLAN.split(" ").map((entry) => entry.split(":")));
const [first, retry] = plan[context.iteration].split(",");
const behaviour = process.argv[1] === "first" ? first : retry;
if (behaviour === "garbage") {
  console.log("Looks good to me! All gates pass.");
  process.exit(0);
}
const gates = context.gates.map((gate) =>
  gate.accepted
    ? { id: gate.id, passed: true, evidence: [{ file: "src/calc.js", line: 1 }] }
    : { id: gate.id, passed: false, reason: "its run failed", evidence: [] },
);
const tests = gates.find((gate) => gate.id === "tests");
if (behaviour === "no-evidence") tests.evidence = [];
if (behaviour === "missing-file") tests.evidence = [{ file: "src/missing.js", line: 3 }];
if (behaviour === "invented-quote") tests.evidence = [{ gate: "tests", quote: "ℹ pass 57" }];
if (behaviour === "approves-red") {
  const lint = gates.find((gate) => gate.id === "lint");
  Object.assign(lint, { passed: true, evidence: [{ file: "src/calc.js", line: 1 }] });
  delete lint.reason;
}
// "strict-overall" fails its overall on the informative lint gate too: a disagreement with its own rulings.
const overall = gates.every((gate) => gate.passed || (gate.id === "lint" && behaviour !== "strict-overall"))
  ? "pass"
  : "fail";
console.log(JSON.stringify({ overall, gates, tamper: [] }));
' "$attempt"
`;

/** A loop whose maker fixes the bug for real; `lint` is an informative gate that stays red. */
function verifierSpec(name: string, options: { base?: string; gates?: string } = {}): string {
  return `name: ${name}
goal: add(2, 3) returns 5.
repo: ./repo
base: ${options.base ?? "main"}
maker:
  engine: scripted
  turns: [{ say: "Fixed add().", write: { src/calc.js: ${JSON.stringify(fixedCalc)} } }]
verifier: { engine: command, run: ./planned-verifier.sh }
gates:
${
  options.gates ??
  `${testsGate}
  - { id: lint, kind: lint-clean, run: "echo 'src/calc.js:1:1 error  prefer function declarations'; exit 1", required: false }`
}
budget: { maxIterations: 3 }
`;
}

/** Which verdict prompt of an iteration: the first attempt's or the corrective retry's. */
export type Attempt = "first" | "retry";

/**
 * Runs a `verifierSpec` loop in `sandbox` with the planned verifier (`plan` as `VERIFIER_PLAN`) and
 * returns it with `prompt`, which reads the verdict prompt the verifier was sent.
 */
export async function runPlannedVerifier(
  sandbox: Sandbox,
  name: string,
  plan: string,
  options: { base?: string; gates?: string } = {},
): Promise<{ run: LoopRun; prompt: (iteration: number, attempt: Attempt) => Promise<string> }> {
  const probe = join(sandbox.root, `probe-${name}`);
  await mkdir(probe, { recursive: true });
  const run = await runLoop(sandbox, verifierSpec(name, options), {
    scripts: { "planned-verifier.sh": plannedVerifier },
    env: { PROBE_DIR: probe, VERIFIER_PLAN: plan },
  });
  const prompt = (iteration: number, attempt: Attempt) =>
    readFile(join(probe, `prompt-${iteration}-${attempt}.md`), "utf8");
  return { run, prompt };
}
