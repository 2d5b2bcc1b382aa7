/**
 * The verifier's verdict: its JSON shape and the checks that make it admissible. A verdict must rule on
 * every gate of the spec and on every tamper flag of the iteration, give a reason for every rejection,
 * cite evidence for every approval, and never approve a gate whose own run failed. Anything else is
 * invalid: the verifier gets one corrective retry, then it is an infrastructure error (the verifier's
 * failure, not the maker's). An `overall` that disagrees with the rulings is admissible: loopwright
 * derives the outcome from the rulings itself (see `deriveOverall`) and records the disagreement.
 */
import { z } from "zod";
import type { Verdict } from "../core/events.ts";
import type { GateSpec } from "../core/spec.ts";

const evidenceSchema = z.union([
  z.object({ file: z.string().min(1), line: z.number().int().positive().optional() }).strict(),
  z.object({ gate: z.string().min(1), quote: z.string().min(1) }).strict(),
]);

export const verdictSchema = z
  .object({
    overall: z.enum(["pass", "fail"]),
    gates: z.array(
      z
        .object({
          id: z.string(),
          passed: z.boolean(),
          reason: z.string().optional(),
          evidence: z.array(evidenceSchema).default([]),
        })
        .strict(),
    ),
    tamper: z
      .array(z.object({ id: z.string(), legitimate: z.boolean(), reason: z.string() }).strict())
      .default([]),
    notes: z.string().optional(),
    /** One imperative line for the loop's later turns, when the verdict rejects something. */
    lesson: z.string().optional(),
  })
  .strict();

/** The JSON Schema engines that support structured output are given. */
export function verdictJsonSchema(): unknown {
  return z.toJSONSchema(verdictSchema, { io: "input" });
}

export type VerdictCheck = { valid: true; verdict: Verdict } | { valid: false; problems: string[] };

/** What a verdict is checked against besides the spec's gates. */
export interface VerdictExpectations {
  /** Tamper flags the verdict must rule on, each by id. */
  flags?: { id: string }[];
  /** Gates whose own deterministic run failed on this commit: a verdict may not approve them. */
  redGates?: string[];
}

/** Parses a verifier's raw stdout: exactly one JSON value, nothing else. */
export function parseVerdictOutput(
  output: string,
  gates: GateSpec[],
  expectations: VerdictExpectations = {},
): VerdictCheck {
  const text = output.trim();
  if (!text)
    return { valid: false, problems: ["the verifier printed nothing; it must print one JSON verdict"] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const preview = text.length > 120 ? `${text.slice(0, 120)}...` : text;
    return {
      valid: false,
      problems: [`the verifier's output is not one JSON value: ${JSON.stringify(preview)}`],
    };
  }
  return checkVerdict(value, gates, expectations);
}

/** Validates a verdict value against the spec's gates, the iteration's tamper flags and its red gates. */
export function checkVerdict(
  value: unknown,
  gates: GateSpec[],
  expectations: VerdictExpectations = {},
): VerdictCheck {
  const parsed = verdictSchema.safeParse(value);
  if (!parsed.success) {
    return {
      valid: false,
      problems: parsed.error.issues.map((issue) => `${issue.path.join(".") || "verdict"}: ${issue.message}`),
    };
  }
  const verdict: Verdict = parsed.data;
  const problems = [...gateProblems(verdict, gates, expectations), ...tamperProblems(verdict, expectations)];
  return problems.length > 0 ? { valid: false, problems } : { valid: true, verdict };
}

function gateProblems(verdict: Verdict, gates: GateSpec[], expectations: VerdictExpectations): string[] {
  const problems: string[] = [];
  const expected = new Set(gates.map((gate) => gate.id));
  const seen = new Set<string>();
  for (const ruling of verdict.gates) {
    if (!expected.has(ruling.id)) problems.push(`gates: ruling on unknown gate '${ruling.id}'`);
    if (seen.has(ruling.id)) problems.push(`gates: gate '${ruling.id}' ruled on twice`);
    seen.add(ruling.id);
    if (!ruling.passed && !ruling.reason?.trim())
      problems.push(`gates.${ruling.id}: a rejection needs a reason`);
    if (ruling.passed && ruling.evidence.length === 0)
      problems.push(`gates.${ruling.id}: an approval needs evidence`);
  }
  for (const id of expected) if (!seen.has(id)) problems.push(`gates: no ruling on gate '${id}'`);
  for (const id of expectations.redGates ?? []) {
    if (verdict.gates.some((ruling) => ruling.id === id && ruling.passed)) {
      problems.push(`gates.${id}: approved, but the gate's own run failed on this commit`);
    }
  }
  return problems;
}

function tamperProblems(verdict: Verdict, expectations: VerdictExpectations): string[] {
  const problems: string[] = [];
  const flags = new Set((expectations.flags ?? []).map((flag) => flag.id));
  const ruled = new Set<string>();
  for (const ruling of verdict.tamper ?? []) {
    if (!flags.has(ruling.id)) problems.push(`tamper: ruling on unknown flag '${ruling.id}'`);
    if (ruled.has(ruling.id)) problems.push(`tamper: flag '${ruling.id}' ruled on twice`);
    ruled.add(ruling.id);
    if (!ruling.reason.trim()) problems.push(`tamper.${ruling.id}: a ruling needs a reason`);
  }
  for (const id of flags) if (!ruled.has(id)) problems.push(`tamper: no ruling on flag '${id}'`);
  return problems;
}
