/**
 * The verifier's prompt: a blank, read-only reviewer who sees the goal as the user wrote it, the
 * evidence (gate results and logs, the diff from base, protected files touched), and must rule on
 * every gate in one JSON verdict. It never sees the maker's transcript or the maker's own claims.
 */
import { cap } from "../loop/brief.ts";
import type { GateResult } from "../loop/events.ts";
import { isDeterministic, type Spec } from "../loop/spec.ts";

export interface VerifierInputs {
  spec: Spec;
  sha: string;
  baseSha: string;
  gateResults: GateResult[];
  diffPath: string;
  diff: string;
  changedFiles: string[];
  protectedFiles: string[];
}

const diffLimit = 60_000;

export function buildVerifierPrompt(inputs: VerifierInputs): string {
  const { spec } = inputs;
  const gateLines = spec.gates.map((gate) => {
    if (!isDeterministic(gate)) return `### ${gate.id} (agent-check)\nAssertion to rule on: ${gate.assert}`;
    const result = inputs.gateResults.find((candidate) => candidate.id === gate.id);
    const status = result ? (result.passed ? "passed" : `FAILED (exit ${result.exitCode})`) : "not run";
    const required = gate.required ? "" : " (informative, not required)";
    return (
      `### ${gate.id} (${gate.kind})${required}: ${status}\nCommand: \`${gate.run}\`` +
      (result
        ? `\nFull log: ${result.logPath}\nOutput tail:\n\`\`\`\n${cap(result.tail, 2500, "start")}\n\`\`\``
        : "")
    );
  });
  const protectedNote =
    inputs.protectedFiles.length > 0
      ? `\n## Protected files touched\nThe change touches files the user protected. Rule on whether each change is legitimate (and not a weakening of a check):\n${inputs.protectedFiles.map((file) => `- ${file}`).join("\n")}\n`
      : "";
  return `You are the independent verifier of a coding loop. You did not write this change. Decide, with
evidence, whether the commit ${inputs.sha} meets the goal below exactly as the user wrote it: not a
narrower restatement. You are read-only: inspect files and run read-only commands if you can; do not edit.

## Goal (verbatim)
${spec.goal.trimEnd()}

## Gates
${gateLines.join("\n\n")}
${protectedNote}
## The change from base ${inputs.baseSha}
Files changed: ${inputs.changedFiles.join(", ") || "(none)"}
Full diff: ${inputs.diffPath}
\`\`\`diff
${cap(inputs.diff, diffLimit)}
\`\`\`

## Your answer
Print exactly one JSON value and nothing else:
{"overall": "pass" | "fail",
 "gates": [{"id": "<gate id>", "passed": true | false, "reason": "<required when passed is false>",
            "evidence": [{"file": "<path>", "line": <n>} | {"gate": "<gate id>", "quote": "<exact text from its output>"}]}],
 "notes": "<optional>"}
Rule on every gate listed above (${spec.gates.map((gate) => gate.id).join(", ") || "none"}). Every approval
must cite evidence: a file and line in the commit, or a line quoted from a gate's output. "overall" is "pass"
only when every required gate passed.
`;
}
