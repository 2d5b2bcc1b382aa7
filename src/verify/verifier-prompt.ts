/**
 * The verifier's prompt: a blank, read-only reviewer who sees the goal as the user last set it, the
 * evidence (gate results with failure digests and what predates the loop, the diff from base, tamper
 * flags), and must rule on every gate and every flag in one JSON verdict. It never sees the maker's
 * transcript or the maker's own claims.
 */
import { cap } from "../core/cap-text.ts";
import type { GateResult, RecordedTamperFlag } from "../core/events.ts";
import { flagStanding } from "../core/flag-standing.ts";
import { passesPolicy } from "../core/gate-status.ts";
import { type GateSpec, isDeterministic, type Spec } from "../core/spec.ts";

export interface VerifierInputs {
  spec: Spec;
  sha: string;
  baseSha: string;
  gateResults: GateResult[];
  /** The gates' results on the base commit. */
  baseline: Record<string, GateResult>;
  /** Rendered failure digests by their path (GateResult.digestPath). */
  digests: Record<string, string>;
  tamperFlags: RecordedTamperFlag[];
  /** Gates that failed here but passed on a re-run of this commit, and say `flaky: report`. */
  reportedFlakes?: string[];
  diffPath: string;
  diff: string;
  changedFiles: string[];
  /** A `/loopwright` review request this commit answers (the loop's work was verified before it). */
  request?: { author: string; text: string; where?: string };
}

const diffLimit = 60_000;

export function buildVerifierPrompt(inputs: VerifierInputs): string {
  const { spec } = inputs;
  const gateLines = spec.gates.map((gate) => {
    if (!isDeterministic(gate)) return `### ${gate.id} (agent-check)\nAssertion to rule on: ${gate.assert}`;
    const result = inputs.gateResults.find((candidate) => candidate.id === gate.id);
    const required = gate.required ? "" : " (informative, not required)";
    const policy =
      gate.baseline === "strict" ? "" : ` Policy: ${gate.baseline} (compared with the base commit).`;
    const baseline = inputs.baseline[gate.id];
    const status = !result
      ? "not run"
      : result.passed
        ? "passed"
        : `FAILED (exit ${result.exitCode})${acceptedFailure(gate, result, baseline, inputs.reportedFlakes ?? [])}`;
    const before = baseline
      ? baseline.passed
        ? "passed"
        : `failed (${baseline.failures?.length ?? 0} failing tests)`
      : "not run";
    const digest = result?.digestPath ? inputs.digests[result.digestPath] : undefined;
    const output = digest ? cap(digest, 6000) : cap(result?.tail ?? "", 2500, "start");
    return (
      `### ${gate.id} (${gate.kind})${required}: ${status}\nCommand: \`${gate.run}\`. On the base commit it ${before}.${policy}` +
      (result ? `\nFull log: ${result.logPath}\nOutput:\n\`\`\`\n${output}\n\`\`\`` : "")
    );
  });
  const flags =
    inputs.tamperFlags.length > 0
      ? `\n## Tamper flags\nThe change touches checks, or looks like it weakens them. Rule on EACH flag: is the change legitimate for the goal, or does it weaken what proves the goal (a deleted or skipped test, a loosened threshold, an excluded test)?\n${inputs.tamperFlags
          .map(
            (flag) =>
              `- ${flag.id} ${flag.kind}${flag.file ? ` at ${flag.file}${flag.line ? `:${flag.line}` : ""}` : ""}: ${flag.detail}${acceptedNote(spec, flag)}`,
          )
          .join("\n")}\n`
      : "";
  const flagIds = inputs.tamperFlags.map((flag) => flag.id).join(", ");
  return `You are the independent verifier of a coding loop. You did not write this change. Decide, with
evidence, whether the commit ${inputs.sha} meets the goal below exactly as the user wrote it: not a
narrower restatement. You are read-only: inspect files and run read-only commands if you can; do not edit.

## Goal (verbatim)
${spec.goal.trimEnd()}
${requestSection(inputs.request)}
## Gates
${gateLines.join("\n\n")}
${flags}
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
 "tamper": [{"id": "<flag id>", "legitimate": true | false, "reason": "<why>"}],
 "notes": "<optional>",
 "lesson": "<optional: when you reject a gate or rule a tamper flag illegitimate, one imperative line the maker should follow from now on>"}
Rule on every gate listed above (${spec.gates.map((gate) => gate.id).join(", ") || "none"})${flagIds ? ` and on every tamper flag (${flagIds})` : ""}.
Every approval must cite evidence that is checked mechanically: a file and line that exist in the commit,
or a line quoted exactly from a gate's output. A gate that FAILED cannot be approved, unless its status
says that it still passes (under its baseline policy, or as a reported flake). "overall" is
"pass" only when every required gate passed and every tamper flag is legitimate; the loop approves only
when your overall and your rulings both allow it.
`;
}

/** For a blocking kind the spec accepts: the user's reason, and that this instance still needs a ruling. */
function acceptedNote(spec: Spec, flag: RecordedTamperFlag): string {
  if (flagStanding(spec, flag) !== "accepted") return "";
  return ` (a blocking kind this loop's spec accepts, because: ${spec.tamper.reason ?? ""}; rule on whether THIS change is that legitimate case)`;
}

/** Why a failed run still passes, when it does: failures that predate the loop, or a reported flake. */
function acceptedFailure(
  gate: GateSpec,
  result: GateResult,
  baseline: GateResult | undefined,
  reportedFlakes: string[],
): string {
  if (passesPolicy(gate, result, baseline)) {
    const names = result.failures ?? [];
    const listed =
      names.slice(0, 10).join("; ") + (names.length > 10 ? `; and ${names.length - 10} more` : "");
    return `, but it passes under its ${gate.baseline} policy: its ${names.length} failing test(s) already failed on the base commit, so they are pre-existing (${listed})`;
  }
  if (reportedFlakes.includes(gate.id))
    return ", but it passed when re-run on this commit: it is flaky, and the gate reports flakes without blocking";
  return "";
}

/** A review request the commit answers: the goal still governs the verdict; the notes say whether it is met. */
function requestSection(request: VerifierInputs["request"]): string {
  if (!request) return "";
  const quoted = cap(request.text, 4000)
    .split("\n")
    .map((line) => `> ${line}`)
    .join("\n");
  return `
## Review request this commit answers
The loop's work was verified before; ${request.author}, who may push to the repository, then asked${request.where ? ` (on ${request.where})` : ""}:
${quoted}
The goal and the gates still decide your verdict: a change that weakens them is not approved for a
request's sake. Say in \`notes\` whether the request is met.
`;
}
