import YAML from "yaml";
import { budgetSchema } from "../core/spec.ts";
import type { DetectedGate, Detection } from "./detection.ts";

/**
 * The goal written into a new loop.yaml. It validates (the schema only asks for a non-empty goal),
 * so a caller that wants to refuse to run an unedited spec can compare the parsed goal with it.
 */
export const goalPlaceholder =
  'TODO: replace this with the standing goal: what should change, and what "done" means.';

/** What goes into a new loop.yaml besides the fixed defaults. */
export interface RenderSpecOptions {
  /** The spec name; must already match [a-z0-9-]+. */
  name: string;
  /** The repository, relative to the spec file's folder ("." when they are the same). */
  repo: string;
  detection: Detection;
}

/**
 * The text of a commented loop.yaml: every section preceded by a comment saying what it does, the
 * detected setup and gates filled in, budgets at the schema's defaults, and the maker set to
 * claude-code with command and scripted shown as commented alternatives. The result always
 * validates against the spec schema, even when nothing was detected (then `gates: []` with a
 * commented example).
 */
export function renderSpec(options: RenderSpecOptions): string {
  const sections = [
    header(options.detection),
    nameSection(options.name),
    goalSection(),
    repositorySection(options.repo, options.name),
    makerSection(),
    verifierSection(),
    setupSection(options.detection.setup),
    gatesSection(options.detection.gates),
    budgetSection(),
    scopeSection(),
    finishSection(),
  ];
  return `${sections.join("\n\n")}\n`;
}

function header(detection: Detection): string {
  const found = detection.ecosystems.map((ecosystem) => ecosystem.summary);
  const notes = detection.ecosystems.flatMap((ecosystem) => ecosystem.notes);
  return [
    "# A loopwright loop: a standing goal, the gates that prove it done, and the budgets that bound it.",
    found.length > 0
      ? `# Written by \`loopwright init\` from: ${found.join(", ")}. Check every command, then edit the goal.`
      : "# Written by `loopwright init`, which found no test, build or lint commands: add your gates below.",
    ...notes.map((note) => `# Note: ${note}`),
    "# Durations are written 30s, 10m or 2h; money is in US dollars; a limit of 0 means none.",
  ].join("\n");
}

function nameSection(name: string): string {
  return [
    "# The loop's name (lowercase letters, digits and -); its branch and state are named after it.",
    `name: ${scalar(name)}`,
  ].join("\n");
}

function goalSection(): string {
  const body = goalPlaceholder.split("\n").map((line) => `  ${line}`);
  return [
    "# The standing goal, given to the maker verbatim at every iteration. Replace the placeholder.",
    "goal: |",
    ...body,
  ].join("\n");
}

function repositorySection(repo: string, name: string): string {
  return [
    "# The repository the loop works on (relative to this file) and the commit the loop starts from.",
    `repo: ${scalar(repo)}`,
    "base: HEAD",
    `# branch: loop/${name}  # the branch that collects the loop's commits (this one is the default)`,
  ].join("\n");
}

function makerSection(): string {
  return [
    "# The maker: the engine that edits the code at each iteration, in the loop's own git worktree.",
    "maker:",
    "  engine: claude-code",
    "  # model: <model name>  # optional: the model the engine should use",
    "  # Alternatives:",
    "  #   engine: command      # run your own shell command as the maker",
    "  #   run: ./scripts/my-agent.sh",
    "  # or",
    "  #   engine: scripted     # replay fixed turns: a free rehearsal of the loop",
    "  #   turns:",
    '  #     - write: { notes.md: "hello" }',
  ].join("\n");
}

function verifierSection(): string {
  return [
    "# The verifier: an independent engine, in a fresh read-only session, that rules on every gate with",
    "# evidence. auto picks an engine from a different family than the maker's.",
    "verifier:",
    "  engine: auto",
  ].join("\n");
}

function setupSection(setup: string[]): string {
  const comment =
    "# Commands that prepare a fresh checkout (installing dependencies, say) before it is used.";
  if (setup.length === 0) return [comment, "# - npm ci", "setup: []"].join("\n");
  return [comment, "setup:", ...setup.map((command) => `  - ${scalar(command)}`)].join("\n");
}

function gatesSection(gates: DetectedGate[]): string {
  const comment = [
    "# The gates: the checks that prove the goal done. tests-pass, build-succeeds, lint-clean and",
    "# eval-script run `run` as a shell command in a clean checkout of the attempt and pass on exit 0;",
    "# agent-check is a plain-English `assert` the verifier rules on. Each gate also takes timeout",
    "# (default 10m), required (default true) and parallel (default true). The verifier's own",
    "# approval (verifier-approves) is always required and needs no entry.",
  ];
  const example = [
    "# - id: docs-updated",
    "#   kind: agent-check",
    "#   assert: The README documents every new command-line flag.",
  ];
  if (gates.length === 0) {
    return [
      ...comment,
      "# Nothing was detected; replace [] with your gates, for instance:",
      "# - id: tests",
      "#   kind: tests-pass",
      "#   run: ./run-tests.sh",
      ...example,
      "gates: []",
    ].join("\n");
  }
  const entries = gates.flatMap((gate) => [
    `  # ${gate.source}`,
    `  - id: ${scalar(gate.id)}`,
    `    kind: ${gate.kind}`,
    `    run: ${scalar(gate.run)}`,
  ]);
  const indentedExample = [
    "  # An assertion the verifier checks by reading the change:",
    ...example.map((line) => `  ${line}`),
  ];
  return [...comment, "gates:", ...entries, ...indentedExample].join("\n");
}

function budgetSection(): string {
  const defaults = budgetSchema.parse({});
  return [
    "# Budgets: when one runs out the loop stops and says which. 0 means no limit.",
    "budget:",
    `  maxIterations: ${defaults.maxIterations}  # attempts before giving up`,
    `  wallClockPerIteration: ${durationText(defaults.wallClockPerIteration)}  # a maker turn is stopped after this`,
    `  maxCostUsdPerIteration: ${defaults.maxCostUsdPerIteration}  # dollars one iteration may spend`,
    `  maxCostUsdPerDay: ${defaults.maxCostUsdPerDay}  # dollars per UTC day, then a pause until midnight`,
  ].join("\n");
}

function scopeSection(): string {
  return [
    "# Scope: the files the maker may change, as globs relative to the repository. A change outside",
    "# allow, or inside deny, fails the iteration. protect adds files to the tamper set (tests, configs,",
    "# manifests, lockfiles and CI are in it already): changes there never pass on their own and are",
    "# pointed out to the verifier.",
    "scope:",
    '  allow: ["**"]',
    '  deny: []  # for example ["vendor/**"]',
    "  protect: []",
  ].join("\n");
}

function finishSection(): string {
  return [
    "# What happens once the loop is verified: branch hands the work over on the loop's branch;",
    "# none stops there.",
    "finish:",
    "  action: branch",
  ].join("\n");
}

/** A YAML scalar for `value`: plain when that reads back the same, quoted otherwise. */
function scalar(value: string): string {
  return YAML.stringify(value, { lineWidth: 0 }).trimEnd();
}

/** Milliseconds as the shortest duration text the spec reads back exactly (`1h`, `10m`, `30s`). */
function durationText(milliseconds: number): string {
  if (milliseconds % 3_600_000 === 0) return `${milliseconds / 3_600_000}h`;
  if (milliseconds % 60_000 === 0) return `${milliseconds / 60_000}m`;
  if (milliseconds % 1000 === 0) return `${milliseconds / 1000}s`;
  return `${milliseconds}ms`;
}
