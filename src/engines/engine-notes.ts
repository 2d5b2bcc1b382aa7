/**
 * What a user must know about the engines a spec picks, said once by `validate`, `doctor` and the
 * timeline: which verifier `auto` chose (and whether it shares the maker's provider), and where a cost
 * cap cannot be enforced because the engine reports no usage or its model has no price, and when turns
 * run without the operating-system sandbox.
 */
import { reviewerEngine } from "../core/review-engine.ts";
import type { EngineSpec, Spec } from "../core/spec.ts";
import { type SandboxAvailability, sandboxAvailability } from "../sandbox/sandbox-availability.ts";
import { unpricedWarnings } from "./pricing-notes.ts";
import { agentCliDefinition, chooseVerifier, providerOf } from "./registry.ts";

export interface EngineNotes {
  maker: string;
  verifier: string;
  /** The `review` engine, when the spec has review rounds. */
  reviewer?: string;
  warnings: string[];
}

/** Throws the registry's `UsageError` when no verifier can be chosen. */
export function engineNotes(spec: Spec, sandbox: SandboxAvailability = sandboxAvailability()): EngineNotes {
  const choice = chooseVerifier(spec.maker, spec.verifier);
  const warnings = choice.warning ? [choice.warning] : [];
  const reviewer = spec.review ? reviewerEngine(spec.review) : undefined;
  const roles: { role: string; engine: EngineSpec }[] = [
    { role: "maker", engine: spec.maker },
    { role: "verifier", engine: choice.spec },
    ...(reviewer ? [{ role: "reviewer", engine: reviewer }] : []),
  ];
  for (const { role, engine } of roles) {
    const definition = agentCliDefinition(engine.engine);
    if (definition?.costReporting === "none") {
      warnings.push(
        `${role} ${engine.engine} reports no cost (only its tokens, after each turn): maxCostUsdPerIteration and maxCostUsdPerDay are not enforced for its turns`,
      );
    } else if (definition?.costReporting === "end-of-turn" && role === "maker") {
      warnings.push(
        `maker ${engine.engine} reports usage only when a turn ends: the cost cap can stop the loop after that turn, not during it`,
      );
    }
  }
  warnings.push(...unpricedWarnings(spec, roles));
  const runsCommands = roles.some(({ engine }) => engine.engine !== "scripted");
  if (!sandbox.available && runsCommands) warnings.push(unsandboxedWarning(sandbox.reason));
  return {
    maker: describeEngine(spec.maker),
    verifier: describeEngine(choice.spec),
    ...(reviewer ? { reviewer: describeEngine(reviewer) } : {}),
    warnings,
  };
}

/** What running without the sandbox means, in one line. */
export function unsandboxedWarning(reason: string): string {
  return `no operating-system sandbox (${reason}): the verifier is read-only only by its options, the maker can write outside its worktree, and a process that leaves the process group and drops loopwright's tags can outlive the loop`;
}

export function describeEngine(engine: EngineSpec): string {
  if (engine.engine === "command") return `command \`${engine.run}\``;
  const provider = providerOf(engine);
  const model = engine.model ? ` ${engine.model}` : "";
  return provider === "unknown" || provider === "scripted"
    ? `${engine.engine}${model}`
    : `${engine.engine}${model} (${provider})`;
}
