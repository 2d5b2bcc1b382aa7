import type { z } from "zod";
import type { LocatedYaml } from "./yaml-locations.ts";

/**
 * Turns zod issues into the one-line problems a person fixes a spec file with:
 * `<file>:<line>: <field path>: <message>`, sorted by line, every issue kept.
 */

type Issue = z.core.$ZodIssue;
type Problem = { path: PropertyKey[]; message: string };

/** Validates `yaml.data` against `schema`; returns the output, or every problem located in `fileLabel`. */
export function validateLocated<Schema extends z.ZodType>(
  schema: Schema,
  yaml: LocatedYaml,
  fileLabel: string,
): { ok: true; value: z.output<Schema> } | { ok: false; problems: string[] } {
  // jitless: zod's compiled fast path is built per schema at its first parse, which costs more than it
  // saves on the one parse a command makes of a spec; the checks and the output are the same.
  const result = schema.safeParse(yaml.data, { reportInput: true, jitless: true });
  if (result.success) return { ok: true, value: result.data };
  const located = result.error.issues
    .flatMap((issue) => problemsOf(issue, schema))
    .map((problem) => ({ line: yaml.lineOf(problem.path), problem }));
  located.sort((left, right) => left.line - right.line);
  return {
    ok: false,
    problems: located.map(({ line, problem }) =>
      formatProblem(fileLabel, line, problem.path, problem.message),
    ),
  };
}

/** One problem line: `<file>:<line>: <field path>: <message>` (the path part is left out when empty). */
export function formatProblem(
  fileLabel: string,
  line: number,
  path: readonly PropertyKey[],
  message: string,
) {
  const field = formatFieldPath(path);
  return field ? `${fileLabel}:${line}: ${field}: ${message}` : `${fileLabel}:${line}: ${message}`;
}

/** Renders a path the way it reads in the file: `gates[1].run`, `budget.maxIterations`, `write["src/a.ts"]`. */
export function formatFieldPath(path: readonly PropertyKey[]): string {
  let text = "";
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else if (/^[A-Za-z_][\w-]*$/.test(String(segment)))
      text += text ? `.${String(segment)}` : String(segment);
    else text += `[${JSON.stringify(String(segment))}]`;
  }
  return text;
}

function problemsOf(issue: Issue, schema: z.ZodType): Problem[] {
  const path = [...issue.path];
  switch (issue.code) {
    case "unrecognized_keys":
      return issue.keys.map((key) => ({
        path: [...path, key],
        message: `unknown field '${key}'${suggestion(key, fieldsAt(schema, path))}`,
      }));
    case "invalid_type":
      return [{ path, message: typeMessage([issue.expected], issue.input) }];
    case "invalid_value":
      return [{ path, message: valueMessage(path, issue.values, issue.input) }];
    case "invalid_union":
      return [{ path, message: unionMessage(path, issue) }];
    case "too_small":
      return [{ path, message: sizeMessage(issue, "at least", "more than") }];
    case "too_big":
      return [{ path, message: sizeMessage(issue, "at most", "less than") }];
    default:
      return [{ path, message: issue.message }];
  }
}

function typeMessage(expected: readonly string[], input: unknown): string {
  if (input === undefined) return "required";
  const names = [...new Set(expected.map((type) => typeNames[type] ?? type))];
  const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} or ${names.at(-1)}` : names[0];
  return `expected ${list}, got ${describe(input)}`;
}

const typeNames: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  object: "a mapping",
  record: "a mapping",
  array: "a list",
};

/** `unknown engine 'foo' (known: command, scripted, …)`: the noun is the field's own name. */
function valueMessage(path: readonly PropertyKey[], values: readonly unknown[], input: unknown): string {
  if (input === undefined) return "required";
  // `auto` is a valid verifier engine only; listing it for the maker would suggest a value the maker rejects.
  const known =
    path[0] === "maker" && path[1] === "engine" ? values.filter((value) => value !== "auto") : values;
  const list = known.map(String).join(", ");
  const noun = [...path].reverse().find((segment) => typeof segment === "string") ?? "value";
  if (typeof input === "string") return `unknown ${String(noun)} '${input}' (known: ${list})`;
  return `expected one of ${list}, got ${describe(input)}`;
}

/** A union fails as a whole: name every alternative it would have accepted. */
function unionMessage(
  path: readonly PropertyKey[],
  issue: Extract<Issue, { code: "invalid_union" }>,
): string {
  const branches = issue.errors.map((branch) => branch.filter((inner) => inner.path.length === 0));
  const flat = branches.flat();
  if (flat.length === 0 || branches.some((branch) => branch.length !== 1)) return issue.message;
  const values = flat.flatMap((inner) => (inner.code === "invalid_value" ? inner.values : []));
  const types = flat.flatMap((inner) => (inner.code === "invalid_type" ? [inner.expected] : []));
  if (types.length === 0) return valueMessage(path, values, issue.input);
  if (issue.input === undefined) return "required";
  return typeMessage([...values.map((value) => `'${String(value)}'`), ...types], issue.input);
}

function sizeMessage(
  issue: Extract<Issue, { code: "too_small" | "too_big" }>,
  inclusiveWord: string,
  exclusiveWord: string,
): string {
  const limit = Number("minimum" in issue ? issue.minimum : issue.maximum);
  const bound = `${issue.inclusive === false ? exclusiveWord : inclusiveWord} ${limit}`;
  if (issue.origin === "string")
    return limit === 1 && "minimum" in issue ? "must not be empty" : `needs ${bound} characters`;
  if (issue.origin === "array") return `needs ${bound} items`;
  return `must be ${bound}`;
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return "nothing";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") return `'${value.length > 40 ? `${value.slice(0, 37)}...` : value}'`;
  return String(value);
}

/** The field names an object schema accepts at `path`, unwrapping defaults, optionals, pipes and arrays. */
function fieldsAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  // zod's `_zod.def` is the documented introspection surface for library authors.
  type Definition = {
    type: string;
    shape?: Record<string, unknown>;
    innerType?: Holder;
    in?: Holder;
    element?: Holder;
    /** A lazy schema's (spec.ts builds the sections most specs leave out at their first use). */
    getter?: () => Holder;
  };
  type Holder = { _zod: { def: Definition } };
  const unwrap = (holder: Holder | undefined): Definition | undefined => {
    let definition = holder?._zod.def;
    while (definition && (definition.innerType || definition.in || definition.getter)) {
      definition = (definition.innerType ?? definition.in ?? definition.getter?.())?._zod.def;
    }
    return definition;
  };
  let definition = unwrap(schema as unknown as Holder);
  for (const segment of path) {
    if (definition?.type === "object" && typeof segment === "string")
      definition = unwrap(definition.shape?.[segment] as Holder | undefined);
    else if (definition?.type === "array" && typeof segment === "number")
      definition = unwrap(definition.element);
    else return [];
  }
  return definition?.type === "object" ? Object.keys(definition.shape ?? {}) : [];
}

/** ` (did you mean maxIterations?)` when one known field is a likely typo of `key`, else empty. */
function suggestion(key: string, known: readonly string[]): string {
  const lower = key.toLowerCase();
  const close = known.filter((name) => {
    if (name.toLowerCase() === lower) return true;
    return key.length > 3 && editDistance(lower, name.toLowerCase()) <= 2;
  });
  return close.length === 1 ? ` (did you mean ${close[0]}?)` : "";
}

/** Levenshtein distance: how many single-character edits turn `left` into `right`. */
export function editDistance(left: string, right: string): number {
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let row = 1; row <= left.length; row++) {
    const current = [row];
    for (let column = 1; column <= right.length; column++) {
      const substitution = previous[column - 1] + (left[row - 1] === right[column - 1] ? 0 : 1);
      current.push(Math.min(previous[column] + 1, current[column - 1] + 1, substitution));
    }
    previous = current;
  }
  return previous[right.length];
}
