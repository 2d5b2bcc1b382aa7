/**
 * What `validate` and `run` check before anything is spent: the repository and base exist, the engines
 * can be built and find credentials to call their models with, and every command the loop will run can
 * be found. Returns problems, one line each.
 */

import { isAbsolute, join } from "node:path";
import { formatDuration } from "../core/duration.ts";
import { reviewerEngine } from "../core/review-engine.ts";
import { describeRule } from "../core/schedule-rule.ts";
import type { EngineSpec, Spec } from "../core/spec.ts";
import type { LoadedSpec } from "../core/spec-file.ts";
import { credentialProblem } from "../engines/engine-credentials.ts";
import { engineNotes } from "../engines/engine-notes.ts";
import { createEngine, resolveVerifier } from "../engines/registry.ts";
import { UsageError } from "../errors.ts";
import { constants } from "../files/node-fs.ts";
import { git, gitResult } from "../git/git.ts";
import { defaultRemote, repositoryCommitAt, resolveCommit, resolveRepository } from "../git/repository.ts";
import { findExecutable } from "../process/find-executable.ts";
import { missingPythonModule, npxToolNotInstalled } from "./command-tools.ts";
import { commandWords } from "./command-words.ts";
import { placeholderGoal } from "./goal-placeholder.ts";

export interface Preflight {
  problems: string[];
  /** What will work but probably not as meant (`validate` prints them; they do not stop a run). */
  warnings: string[];
  repoRoot?: string;
  baseSha?: string;
}

/**
 * `label` names the spec in problem lines (the path as the user gave it). `usualCase`: the answer of
 * `repositoryCommitAt(loaded.repoPath, loaded.spec.base)` when the caller started it already (its git
 * process then runs while preflight's modules load).
 */
export async function preflight(
  loaded: LoadedSpec,
  label: string,
  usualCase?: Promise<Awaited<ReturnType<typeof repositoryCommitAt>>>,
): Promise<Preflight> {
  const { spec } = loaded;
  const problems: string[] = [];
  const warnings: string[] = [];
  const placeholder = placeholderGoal(spec.goal);
  if (placeholder) {
    problems.push(`${label}: goal: ${placeholder}: write what should change and what done means`);
  }
  let repoRoot: string | undefined;
  let baseSha: string | undefined;
  try {
    // The usual case in one git process; otherwise the two calls, which word the errors.
    const usual = await (usualCase ?? repositoryCommitAt(loaded.repoPath, spec.base));
    repoRoot = usual?.root ?? (await resolveRepository(loaded.repoPath)).root;
    baseSha = usual?.commit ?? (await resolveCommit(repoRoot, spec.base));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    problems.push(`${label}: ${error.message}`);
  }
  const engines: [string, EngineSpec][] = [
    ["maker", spec.maker],
    ["verifier", spec.verifier],
    ...(spec.review ? [["review", reviewerEngine(spec.review)] as [string, EngineSpec]] : []),
  ];
  for (const [field, engineSpec] of engines) {
    try {
      const resolved = field === "verifier" ? resolveVerifier(spec.maker, engineSpec) : engineSpec;
      createEngine(resolved, field);
      const credentials = credentialProblem(resolved, field);
      if (credentials) problems.push(`${label}: ${credentials}`);
      if (resolved.engine === "command" && resolved.run) {
        const missing = await missingProgram(resolved.run, loaded.specDirectory);
        if (missing) problems.push(`${label}: ${field}.run: command not found: ${missing}`);
      }
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      problems.push(`${label}: ${error.message}`);
    }
  }
  for (const [index, gate] of spec.gates.entries()) {
    if (!gate.run) continue;
    const missing = await missingProgram(
      gate.run,
      repoRoot,
      repoRoot && baseSha ? { repoRoot, baseSha } : undefined,
    );
    if (missing) {
      // The README's rule, said where it bites: engines from the spec's folder, gates from the repository.
      const hint = /^\.\.?\//.test(missing) ? " (a gate's ./ path is relative to the repository)" : "";
      problems.push(`${label}: gates[${index}].run: command not found: ${missing}${hint}`);
      continue;
    }
    if (!repoRoot) continue;
    const words = commandWords(gate.run);
    const module = await missingPythonModule(words, repoRoot);
    if (module)
      problems.push(
        `${label}: gates[${index}].run: ${words[0]} cannot find the module ${module} (${words[0]} -m ${module})`,
      );
    const tool = npxToolNotInstalled(words, repoRoot);
    if (tool)
      warnings.push(
        `gates[${index}].run: ${tool} is not installed in the repository (node_modules/.bin): npx would download it at every run`,
      );
  }
  if (spec.strategy.kind === "tasks" && repoRoot && baseSha) {
    const problem = await taskListProblem(repoRoot, baseSha, spec.strategy.file);
    if (problem) problems.push(`${label}: strategy.file: ${problem}`);
  }
  if (spec.finish.action === "pull-request" && repoRoot) {
    const { problem, warnings: forgeWarnings } = await pullRequestProblem(spec, repoRoot);
    if (problem) problems.push(`${label}: finish: ${problem}`);
    warnings.push(...forgeWarnings.map((warning) => `finish: ${warning}`));
  }
  return { problems, warnings, repoRoot, baseSha };
}

/** Why the task list of the base commit cannot drive a tasks loop (missing, unreadable, empty, all done). */
async function taskListProblem(repoRoot: string, baseSha: string, file: string): Promise<string | undefined> {
  // Only a tasks loop needs these: other specs are checked without loading them.
  const [{ fileAt }, { parseTaskList }] = await Promise.all([
    import("../git/tree-with-file.ts"),
    import("./strategies/task-list.ts"),
  ]);
  const text = await fileAt(repoRoot, baseSha, file);
  if (text === undefined)
    return `${file} is not in the base commit ${baseSha.slice(0, 10)} (commit it first)`;
  const parsed = parseTaskList(file, text);
  if (!parsed.ok) return `${file}: ${parsed.problem}`;
  if (parsed.tasks.every((task) => task.done)) return `${file}: every task is already done: nothing to do`;
  return undefined;
}

/** For `finish: pull-request`: a remote to push to, a forge that can be told, a token it accepts with push access. */
async function pullRequestProblem(
  spec: Spec,
  repoRoot: string,
): Promise<{ problem?: string; warnings: string[] }> {
  const remote = await defaultRemote(repoRoot);
  if (!remote)
    return { problem: "no remote to push to: add one (git remote add origin <url>)", warnings: [] };
  const url = await gitResult(["remote", "get-url", remote], repoRoot, { trim: true });
  // Only a pull-request finish needs the forge: other specs are checked without loading it.
  const [{ openForge }, { ciTriggerWarnings }] = await Promise.all([
    import("../forge/open-forge.ts"),
    import("../forge/forge-doctor.ts"),
  ]);
  const opened = await openForge(spec.finish, url.code === 0 ? url.stdout : undefined, { maxWaitMs: 10_000 });
  if ("problem" in opened) return { problem: opened.problem, warnings: [] };
  return {
    problem: await opened.client.checkAccess(),
    warnings: ciTriggerWarnings(
      opened.target.forge,
      opened.tokenSource,
      process.env,
      spec.finish.ci !== undefined,
    ),
  };
}

/** A readable summary of what the loop would do, without doing it. */
export function describePlan(spec: Spec, repoRoot: string, baseSha: string): string {
  const budget = spec.budget;
  const limit = (value: number, unit: string) => (value === 0 ? "no limit" : `${value}${unit}`);
  const engines = engineNotes(spec);
  const lines = [
    `loop ${spec.name} in ${repoRoot}`,
    `  branch ${spec.branch} from ${spec.base} (${baseSha.slice(0, 12)})`,
    `  maker: ${engines.maker}; verifier: ${engines.verifier}${engines.reviewer ? `; reviewer: ${engines.reviewer} (${spec.review?.rounds} rounds at most)` : ""}`,
    ...spec.setup.map((command) => `  setup: ${command}`),
    ...spec.gates.map(
      (gate) =>
        `  gate ${gate.id} (${gate.kind}${gate.required ? "" : ", informative"}): ${gate.run ?? gate.assert}` +
        (gate.run ? ` [timeout ${gate.timeout / 1000}s${gate.parallel ? "" : ", alone"}]` : ""),
    ),
    "  gate verifier-approves: always on",
    `  budget: ${limit(budget.maxIterations, " iterations")}, ${limit(budget.wallClockPerIteration / 1000, "s")} per iteration, ` +
      `$${budget.maxCostUsdPerIteration || "∞"} per iteration, $${budget.maxCostUsdPerDay || "∞"} per day`,
    `  scope: allow ${spec.scope.allow.join(", ")}` +
      (spec.scope.deny.length ? `; deny ${spec.scope.deny.join(", ")}` : "") +
      (spec.scope.protect.length ? `; protect ${spec.scope.protect.join(", ")}` : ""),
    `  strategy: ${describeStrategy(spec)}`,
    `  finish: ${spec.finish.action}` +
      (spec.finish.ci
        ? `; then watch CI (${spec.finish.ci.wait > 0 ? `${formatDuration(spec.finish.ci.wait)} per round` : "no time bound"}, at most ${spec.finish.ci.maxRepairs} repair rounds)`
        : ""),
    ...(spec.schedule
      ? [`  schedule: ${describeRule(spec.schedule)} (run --detach registers it; loopwright serve fires it)`]
      : []),
    ...engines.warnings.map((warning) => `  warning: ${warning}`),
  ];
  return lines.join("\n");
}

const shellWords = new Set([
  "cd",
  "echo",
  "exit",
  "export",
  "true",
  "false",
  "test",
  "[",
  "set",
  "exec",
  "eval",
  ".",
  ":",
  "printf",
  "read",
  "source",
  "if",
  "for",
  "while",
  "case",
  "command",
  "env",
  "sh",
  "bash",
]);

/**
 * The program a command line starts with, when it can be found neither on PATH nor as a file; undefined
 * when it exists or the line is too shell-like to tell (variables, subshells, assignments).
 */
async function missingProgram(
  command: string,
  directory: string | undefined,
  repository?: { repoRoot: string; baseSha: string },
): Promise<string | undefined> {
  const first = commandWords(command)[0] ?? "";
  if (!first || /[$`()<>|&;'"=*?{}]/.test(first) || shellWords.has(first)) return undefined;
  if (first.includes("/")) {
    const path = isAbsolute(first) ? first : directory ? join(directory, first) : undefined;
    if (path && (await isExecutableFile(path))) return undefined;
    if (repository && !isAbsolute(first)) {
      const relative = first.replace(/^\.\//, "");
      const found = await git(
        ["cat-file", "-e", `${repository.baseSha}:${relative}`],
        repository.repoRoot,
      ).then(
        () => true,
        () => false,
      );
      if (found) return undefined;
    }
    return first;
  }
  return findExecutable(first) ? undefined : first;
}

async function isExecutableFile(path: string): Promise<boolean> {
  // fs/promises (and the readline modules it loads) only here: most specs never ask.
  return process
    .getBuiltinModule("node:fs/promises")
    .access(path, constants.X_OK)
    .then(
      () => true,
      () => false,
    );
}

function describeStrategy(spec: Spec): string {
  const strategy = spec.strategy;
  switch (strategy.kind) {
    case "until-verified":
      return "until-verified";
    case "streak":
      return `streak: ${strategy.passes} consecutive full-suite passes, at most ${strategy.maxRuns} full runs`;
    case "metric":
      return `metric: ${strategy.direction} /${strategy.pattern}/ of \`${strategy.run}\`, median of ${strategy.samples}${strategy.target === undefined ? "" : `, target ${strategy.target}`}${strategy.plateau > 0 ? `, plateau after ${strategy.plateau}` : ""}`;
    case "tasks":
      return `tasks from ${strategy.file}, one per iteration; ${strategy.maxAttemptsPerTask} attempts per task, then ${strategy.onStuck === "skip" ? "skip it" : "stop"}`;
  }
}
