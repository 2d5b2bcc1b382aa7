import { dirname, isAbsolute, join, resolve } from "node:path";
import { SpecError } from "../errors.ts";
import { readRegularFileSync } from "../files/read-regular-file.ts";
import { plainSpecValue } from "./plain-spec.ts";
import { reviewerEngine } from "./review-engine.ts";
import type { AnyModeSpec, EngineSpec, Spec } from "./spec.ts";
import { formatProblem, validateLocated } from "./spec-problems.ts";
import { specSchemas } from "./spec-schemas.ts";
import { maximumSpecBytes, readSpecText } from "./spec-text.ts";
import { type LocatedYaml, parseLocatedYaml } from "./yaml-locations.ts";

/** Whether this process validated with zod yet (spec-parser-import.ts: what its code cache holds). */
export { specSchemasUsed } from "./spec-schemas.ts";

/** A spec validated and resolved against where it lives; self-contained, so it can be stored as a snapshot. */
export type ParsedSpec = {
  /** Defaults filled, durations in ms, `branch` set (default `loop/<name>`), scripted turns inlined. */
  spec: Spec;
  /** Absolute folder the spec's relative paths are read from. */
  specDirectory: string;
  /** Absolute path of `spec.repo`, resolved against `specDirectory`. */
  repoPath: string;
};

/** A validated spec that may lack a maker (hook mode needs none). */
export type ParsedAnyModeSpec = Omit<ParsedSpec, "spec"> & { spec: AnyModeSpec };

/** A spec loaded from a file: a `ParsedSpec` plus the file's absolute path. */
export type LoadedSpec = ParsedSpec & { specPath: string };

export { maximumSpecBytes };

/** Longest excerpt of a value quoted in a problem: a spec symlinked to a private file must not echo it. */
const quotedValueLength = 60;

/** Longest problem line: a field's problem quoting a huge value is cut, saying so. */
const problemLength = 300;

/**
 * Reads, validates and resolves a spec file. Throws `SpecError` listing every problem, one line each,
 * `<path as given>:<line>: <field path>: <message>`; a file that cannot be read is `<path>: no such file`
 * (or `is a folder`, `not a regular file (a FIFO)`, `too large (…)`, `cannot read (CODE)`). Only a regular
 * file of at most 1 MiB is read; quoted values are cut to a short excerpt.
 */
export async function loadSpecFile(path: string): Promise<LoadedSpec> {
  const specPath = resolve(path);
  return { ...parseSpecText(await readSpecText(path), path, dirname(specPath)), specPath };
}

/** Like `loadSpecFile`, but a spec without a maker (hook mode only) is valid. */
export async function loadSpecFileForAnyMode(
  path: string,
): Promise<ParsedAnyModeSpec & { specPath: string }> {
  const specPath = resolve(path);
  return { ...parseSpecTextForAnyMode(await readSpecText(path), path, dirname(specPath)), specPath };
}

/**
 * Validates and resolves spec YAML that is already in memory; `fileLabel` names it in problems and
 * `specDirectory` is where its relative paths (repo, script files, `./` commands) are read from.
 * A scripted engine's `script:` file is read here (synchronously). Throws `SpecError` like `loadSpecFile`.
 */
export function parseSpecText(text: string, fileLabel: string, specDirectory: string): ParsedSpec {
  return requireMaker(parseSpecTextForAnyMode(text, fileLabel, specDirectory), fileLabel);
}

/** The spec for a loop: throws `SpecError` when it has no maker (valid for hook mode only). */
export function requireMaker(parsed: ParsedAnyModeSpec, fileLabel: string): ParsedSpec {
  const { maker } = parsed.spec;
  if (!maker)
    throw new SpecError([
      formatProblem(
        fileLabel,
        1,
        ["maker"],
        "required to run a loop (hook mode needs only name, goal and gates)",
      ),
    ]);
  return { ...parsed, spec: { ...parsed.spec, maker } };
}

/**
 * Like `parseSpecText`, but a spec without a maker is valid: what hook mode and `validate` read. The
 * other files it read (scripted engines' `script:`) are pushed to `filesRead`: each absolute path with
 * the very text that was parsed.
 */
export function parseSpecTextForAnyMode(
  text: string,
  fileLabel: string,
  specDirectory: string,
  filesRead: { path: string; text: string }[] = [],
): ParsedAnyModeSpec {
  const directory = resolve(specDirectory);
  const yaml = readMapping(text, fileLabel, "a spec is a mapping of fields: name, goal, maker, gates, ...");
  const parsed = plainSpecValue(yaml.data) ?? validatedSpec(yaml, fileLabel);

  const problems: string[] = [];
  const scriptContext = { directory, fileLabel, yaml, problems, filesRead };
  const maker = parsed.maker && inlineScript(parsed.maker, "maker", scriptContext);
  const verifier = inlineScript(parsed.verifier, "verifier", scriptContext);
  const review = parsed.review && {
    ...withAbsoluteRun(inlineScript(reviewerEngine(parsed.review), "review", scriptContext), directory),
    engine: parsed.review.engine,
    rounds: parsed.review.rounds,
    checklist: parsed.review.checklist,
  };
  if (problems.length > 0) throw new SpecError(problems);

  const repoPath = resolve(directory, parsed.repo);
  // Engines' ./ paths are the spec folder's; gate and setup commands run as written at the repository
  // root (the worktree), so their ./ paths are the repository's (the README's rule).
  const spec: AnyModeSpec = {
    ...parsed,
    branch: parsed.branch ?? `loop/${parsed.name}`,
    ...(maker ? { maker: withAbsoluteRun(maker, directory) } : {}),
    verifier: withAbsoluteRun(verifier, directory),
    ...(review ? { review } : {}),
  };
  return { spec, specDirectory: directory, repoPath };
}

/** The spec's value as `specSchema` gives it; throws `SpecError` with every problem it finds. */
function validatedSpec(yaml: LocatedYaml, fileLabel: string) {
  const validated = validateLocated(specSchemas().specSchema, yaml, fileLabel);
  if (!validated.ok) throw new SpecError(validated.problems.map(boundProblem));
  return validated.value;
}

/** Parses YAML whose top level must be a mapping; throws `SpecError` for syntax, emptiness or shape. */
function readMapping(text: string, fileLabel: string, hint: string): LocatedYaml {
  const parsed = parseLocatedYaml(text, fileLabel);
  if (!parsed.ok) throw new SpecError(parsed.problems);
  const { data } = parsed.yaml;
  if (data === undefined || data === null) throw new SpecError([`${fileLabel}: the file is empty; ${hint}`]);
  if (typeof data !== "object" || Array.isArray(data)) {
    const got = Array.isArray(data) ? "a list" : `the value ${JSON.stringify(excerpt(String(data)))}`;
    throw new SpecError([`${fileLabel}:${parsed.yaml.lineOf([])}: expected a mapping, got ${got}; ${hint}`]);
  }
  return parsed.yaml;
}

type ScriptContext = {
  directory: string;
  fileLabel: string;
  yaml: LocatedYaml;
  problems: string[];
  filesRead: { path: string; text: string }[];
};

/** Reads a scripted engine's `script:` file into `turns`; problems in it are reported against that file. */
function inlineScript(
  engine: EngineSpec,
  role: "maker" | "verifier" | "review",
  context: ScriptContext,
): EngineSpec {
  const { script, ...rest } = engine;
  if (script === undefined) return engine;
  const at = (field: string, message: string) =>
    formatProblem(context.fileLabel, context.yaml.lineOf([role, field]), [role, field], message);
  if (engine.engine !== "scripted") {
    context.problems.push(at("script", `only engine scripted takes a script, not ${engine.engine}`));
    return engine;
  }
  if (engine.turns) {
    context.problems.push(at("script", "give either script or turns, not both"));
    return engine;
  }
  const scriptLabel = isAbsolute(script) ? script : join(dirname(context.fileLabel), script);
  const scriptPath = resolve(context.directory, script);
  const read = readRegularFileSync(scriptPath, { maximumBytes: maximumSpecBytes });
  if (!read.ok) {
    context.problems.push(at("script", `${scriptLabel}: ${read.problem}`));
    return engine;
  }
  const text = read.text;
  context.filesRead.push({ path: scriptPath, text });
  try {
    const yaml = readMapping(text, scriptLabel, "a script is a mapping with turns: [ ... ]");
    const validated = validateLocated(specSchemas().scriptFileSchema, yaml, scriptLabel);
    if (!validated.ok) {
      context.problems.push(...validated.problems);
      return engine;
    }
    return { ...rest, turns: validated.value.turns };
  } catch (error) {
    if (!(error instanceof SpecError)) throw error;
    context.problems.push(...error.problems);
    return engine;
  }
}

/** An engine command written `./agent.sh …` or `../bin/agent …` runs from anywhere: its first word becomes absolute. */
function withAbsoluteRun(engine: EngineSpec, directory: string): EngineSpec {
  if (!engine.run) return engine;
  return { ...engine, run: rewriteFirstWord(engine.run, (word) => resolve(directory, word)) };
}

/** Applies `rewrite` to the command's first word when it starts with `./` or `../`, quoting it for `sh -c`. */
function rewriteFirstWord(command: string, rewrite: (word: string) => string): string {
  const match = /^(\s*)(\.\.?\/\S*)(.*)$/s.exec(command);
  if (!match) return command;
  return `${match[1]}${shellQuote(rewrite(match[2]))}${match[3]}`;
}

function shellQuote(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The start of a value, marked as cut when it was longer. */
function excerpt(value: string): string {
  return value.length <= quotedValueLength ? value : `${value.slice(0, quotedValueLength)}…`;
}

function boundProblem(problem: string): string {
  return problem.length <= problemLength ? problem : `${problem.slice(0, problemLength)}… (cut)`;
}
