import type { z } from "zod";
import { branchNameProblem } from "./branch-name.ts";
import { timerDuration } from "./duration.ts";
import { verifierGateId } from "./gate-facts.ts";
import type { EngineSpec, GateSpec, specSchema } from "./spec.ts";

/**
 * The value `specSchema` gives a plain spec, made without zod: a spec of name, goal, repo, base, branch,
 * maker, verifier (command or agent engines), setup, gates, budget, scope and a finish without a forge's
 * address, watch or CI, each field as zod accepts it. zod's load and the schema's construction are most of a new spec's parse, and most specs are this
 * plain. Anything else (another field, a strategy, scripted turns, a value zod might refuse, any doubt)
 * is `undefined`: the caller validates with `specSchema`, whose problems are the only ones a user sees.
 *
 * Contract: for every input, the answer is `undefined` or exactly what `specSchema` outputs (the same
 * values, keys in the same order); test/plain-spec.test.ts holds the two equal on every spec the tests
 * and the docs hold and on thousands of variations of them.
 */
export function plainSpecValue(data: unknown): z.output<typeof specSchema> | undefined {
  if (!isPlainObject(data) || !hasOnlyKeys(data, specKeys)) return undefined;
  const { name, goal, repo = ".", base = "HEAD", branch } = data;
  if (typeof name !== "string" || !/^[a-z0-9-]+$/.test(name)) return undefined;
  if (typeof goal !== "string" || goal.trim().length === 0) return undefined;
  if (typeof repo !== "string" || typeof base !== "string") return undefined;
  if (branch !== undefined && (typeof branch !== "string" || branchNameProblem(branch) !== undefined))
    return undefined;
  const maker = data.maker === undefined ? undefined : engineValue(data.maker);
  if (data.maker !== undefined && (maker === undefined || maker.engine === "auto")) return undefined;
  const verifier = data.verifier === undefined ? { engine: "auto" as const } : engineValue(data.verifier);
  const setup = data.setup === undefined ? [] : stringList(data.setup);
  const gates = data.gates === undefined ? [] : gateList(data.gates);
  const budget = budgetValue(data.budget);
  const scope = scopeValue(data.scope);
  const finish = finishValue(data.finish);
  if (!verifier || !setup || !gates || !budget || !scope || !finish) return undefined;
  return {
    name,
    goal: goal.trim(),
    repo,
    base,
    ...(branch === undefined ? {} : { branch }),
    strategy: { kind: "until-verified" },
    ...(maker === undefined ? {} : { maker }),
    verifier,
    setup,
    gates,
    budget,
    scope,
    tamper: { accept: [] },
    finish,
  };
}

const specKeys = new Set([
  "name",
  "goal",
  "repo",
  "base",
  "branch",
  "maker",
  "verifier",
  "setup",
  "gates",
  "budget",
  "scope",
  "finish",
]);

/** The engines taken here: `scripted` (turns, a script file) is left to zod. */
const plainEngines = new Set(["command", "claude-code", "codex", "copilot", "builtin", "auto"]);

function engineValue(input: unknown): EngineSpec | undefined {
  if (!isPlainObject(input) || !hasOnlyKeys(input, engineKeys)) return undefined;
  const { engine, run, model, args } = input;
  if (typeof engine !== "string" || !plainEngines.has(engine)) return undefined;
  if (run !== undefined && !isFilledString(run)) return undefined;
  if (engine === "command" && run === undefined) return undefined;
  if (model !== undefined && typeof model !== "string") return undefined;
  const argList = args === undefined ? undefined : stringList(args);
  if (args !== undefined && argList === undefined) return undefined;
  return {
    engine: engine as EngineSpec["engine"],
    ...(run === undefined ? {} : { run }),
    ...(model === undefined ? {} : { model }),
    ...(argList === undefined ? {} : { args: argList }),
  };
}

const engineKeys = new Set(["engine", "run", "model", "args"]);

const gateKinds = new Set(["tests-pass", "build-succeeds", "lint-clean", "eval-script", "agent-check"]);
const gateKeys = new Set([
  "id",
  "kind",
  "run",
  "assert",
  "timeout",
  "required",
  "parallel",
  "baseline",
  "flaky",
  "rerun",
  "rerunFailed",
  "hook",
]);

function gateList(input: unknown): GateSpec[] | undefined {
  if (!Array.isArray(input)) return undefined;
  const gates: GateSpec[] = [];
  const ids = new Set<string>();
  for (const item of input) {
    const gate = gateValue(item);
    if (gate === undefined || ids.has(gate.id)) return undefined;
    ids.add(gate.id);
    gates.push(gate);
  }
  return gates;
}

function gateValue(input: unknown): GateSpec | undefined {
  if (!isPlainObject(input) || !hasOnlyKeys(input, gateKeys)) return undefined;
  const { id, kind, run, assert, required = true, parallel = true } = input;
  const { baseline = "strict", flaky = "block", rerun = 1, rerunFailed, hook } = input;
  if (typeof id !== "string" || !/^[a-z0-9][a-z0-9_-]*$/.test(id) || id === verifierGateId) return undefined;
  if (typeof kind !== "string" || !gateKinds.has(kind)) return undefined;
  if (run !== undefined && !isFilledString(run)) return undefined;
  if (assert !== undefined && !isFilledString(assert)) return undefined;
  if (kind === "agent-check" ? assert === undefined || run !== undefined : run === undefined)
    return undefined;
  const timeout = input.timeout === undefined ? 600_000 : durationValue(input.timeout);
  if (timeout === undefined || typeof required !== "boolean" || typeof parallel !== "boolean")
    return undefined;
  if (baseline !== "strict" && baseline !== "no-new-failures" && baseline !== "must-improve")
    return undefined;
  if (flaky !== "block" && flaky !== "report") return undefined;
  if (!isWholeNumber(rerun) || rerun < 0 || rerun > 10) return undefined;
  if (rerunFailed !== undefined && (!isFilledString(rerunFailed) || kind !== "tests-pass")) return undefined;
  if (hook !== undefined && hook !== "every-stop" && hook !== "on-close") return undefined;
  return {
    id,
    kind: kind as GateSpec["kind"],
    ...(run === undefined ? {} : { run }),
    ...(assert === undefined ? {} : { assert }),
    timeout,
    required,
    parallel,
    baseline,
    flaky,
    rerun,
    ...(rerunFailed === undefined ? {} : { rerunFailed }),
    ...(hook === undefined ? {} : { hook }),
  };
}

const budgetKeys = new Set([
  "maxIterations",
  "wallClockPerIteration",
  "maxCostUsdPerIteration",
  "maxCostUsdPerDay",
]);

function budgetValue(input: unknown): z.output<typeof specSchema>["budget"] | undefined {
  if (input === undefined) input = {};
  if (!isPlainObject(input) || !hasOnlyKeys(input, budgetKeys)) return undefined;
  const { maxIterations = 3, maxCostUsdPerIteration = 10, maxCostUsdPerDay = 25 } = input;
  const wallClockPerIteration =
    input.wallClockPerIteration === undefined ? 3_600_000 : durationValue(input.wallClockPerIteration);
  if (!isWholeNumber(maxIterations) || maxIterations < 0 || wallClockPerIteration === undefined)
    return undefined;
  if (!isDollars(maxCostUsdPerIteration) || !isDollars(maxCostUsdPerDay)) return undefined;
  return { maxIterations, wallClockPerIteration, maxCostUsdPerIteration, maxCostUsdPerDay };
}

const scopeKeys = new Set(["allow", "deny", "protect"]);

function scopeValue(input: unknown): z.output<typeof specSchema>["scope"] | undefined {
  if (input === undefined) return { allow: ["**"], deny: [], protect: [] };
  if (!isPlainObject(input) || !hasOnlyKeys(input, scopeKeys)) return undefined;
  const allow = input.allow === undefined ? ["**"] : stringList(input.allow);
  const deny = input.deny === undefined ? [] : stringList(input.deny);
  const protect = input.protect === undefined ? [] : stringList(input.protect);
  return allow && deny && protect ? { allow, deny, protect } : undefined;
}

const finishKeys = new Set(["action", "forge", "base", "draft", "labels"]);
const forges = new Set(["auto", "github", "gitlab", "gitea"]);

function finishValue(input: unknown): z.output<typeof specSchema>["finish"] | undefined {
  if (input === undefined) return { action: "branch", forge: "auto", draft: false, labels: [] };
  if (!isPlainObject(input) || !hasOnlyKeys(input, finishKeys)) return undefined;
  const { action = "branch", forge = "auto", base, draft = false, labels = [] } = input;
  if (action !== "none" && action !== "branch" && action !== "pull-request") return undefined;
  if (typeof forge !== "string" || !forges.has(forge) || typeof draft !== "boolean") return undefined;
  if (base !== undefined && (!isFilledString(base) || action !== "pull-request")) return undefined;
  const labelList = stringList(labels);
  if (!labelList?.every((label) => label.length > 0)) return undefined;
  return {
    action,
    forge: forge as "auto",
    ...(base === undefined ? {} : { base }),
    draft,
    labels: labelList,
  };
}

/** A duration as the schema's `duration` gives it: a finite number or a text timerDuration takes. */
function durationValue(input: unknown): number | undefined {
  if ((typeof input !== "number" || !Number.isFinite(input)) && typeof input !== "string") return undefined;
  const read = timerDuration(input);
  return "ms" in read ? read.ms : undefined;
}

function stringList(input: unknown): string[] | undefined {
  if (!Array.isArray(input) || !input.every((item) => typeof item === "string")) return undefined;
  return [...input];
}

function isFilledString(value: unknown): value is string {
  return typeof value === "string" && value.length > 0;
}

function isWholeNumber(value: unknown): value is number {
  return Number.isSafeInteger(value);
}

function isDollars(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0;
}

/** A mapping as YAML gives one (not a list, a date or anything else zod might see otherwise). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function hasOnlyKeys(value: Record<string, unknown>, keys: ReadonlySet<string>): boolean {
  for (const key in value) if (!keys.has(key) || value[key] === undefined) return false;
  return Object.getOwnPropertySymbols(value).length === 0;
}
