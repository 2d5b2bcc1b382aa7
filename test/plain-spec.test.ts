/**
 * plain-spec.ts validates plain specs without zod; its contract is that its answer is either nothing
 * (zod decides) or exactly zod's value, keys in the same order. Held here on every spec the tests, the
 * docs and the README hold, and on every variation of them that replaces, removes or adds one field.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { plainSpecValue } from "../src/core/plain-spec.ts";
import { specSchema } from "../src/core/spec.ts";
import { parseSpecTextForAnyMode } from "../src/core/spec-file.ts";
import { parseLocatedYaml } from "../src/core/yaml-locations.ts";

const root = join(import.meta.dirname, "..");

/** Spec texts in the repository: YAML blocks of the docs, template literals of the tests (no `${`). */
function repositorySpecs(): string[] {
  const texts = new Set<string>();
  const markdown = ["README.md", ...readdirSync(join(root, "docs")).map((name) => join("docs", name))];
  for (const file of markdown.filter((name) => name.endsWith(".md")))
    for (const match of readFileSync(join(root, file), "utf8").matchAll(/```ya?ml\n([\s\S]*?)```/g))
      if (/^name:/m.test(match[1])) texts.add(match[1]);
  for (const file of readdirSync(join(root, "test")).filter((name) => name.endsWith(".ts")))
    for (const match of readFileSync(join(root, "test", file), "utf8").matchAll(/`([^`]*)`/g))
      if (/^name:/m.test(match[1]) && /^goal:/m.test(match[1]) && !/\$\{|\\/.test(match[1]))
        texts.add(match[1]);
  return [...texts];
}

const plain = `name: plain
goal: "  A plain spec.  "
repo: ./repo
branch: loop/plain-one
maker: { engine: command, run: ./agent.sh, args: [a, b] }
verifier: { engine: codex, model: gpt }
setup: [ "npm ci" ]
gates:
  - { id: tests, kind: tests-pass, run: "node --test", timeout: 10m, rerunFailed: "node --test --failed" }
  - { id: types, kind: build-succeeds, run: tsc, required: false, parallel: false, baseline: no-new-failures }
  - { id: flake, kind: lint-clean, run: lint, flaky: report, rerun: 0, hook: on-close, timeout: 90 }
  - { id: review-1, kind: agent-check, assert: "It reads well.", hook: every-stop }
budget: { maxIterations: 0, wallClockPerIteration: 1.5h, maxCostUsdPerIteration: 0.5, maxCostUsdPerDay: 0 }
scope: { allow: ["src/**"], protect: ["test/**"] }
`;

const plainPullRequest = `name: plain-pr
goal: Open a pull request.
maker: { engine: claude-code }
gates: [ { id: tests, kind: tests-pass, run: "true" } ]
finish: { action: pull-request, forge: gitlab, base: main, draft: true, labels: [loop, bot] }
`;

/** Values a field is replaced with: each type, edges of the ranges, durations, enum neighbours. */
const replacements: unknown[] = [
  undefined,
  null,
  "",
  " ",
  "x",
  "auto",
  "command",
  "scripted",
  "tests-pass",
  "agent-check",
  "strict",
  "report",
  "on-close",
  "pull-request",
  "none",
  "github",
  "10m",
  "10 minutes",
  "loop/a..b",
  "verifier-approves",
  "Upper",
  0,
  -0,
  1,
  -1,
  1.5,
  10,
  11,
  2 ** 53,
  Number.POSITIVE_INFINITY,
  Number.NaN,
  true,
  false,
  [],
  ["a"],
  [1],
  {},
  { engine: "command", run: "true" },
  { engine: "command" },
  { id: "t", kind: "tests-pass", run: "true" },
  new Date(0),
];

/** Every path to a value in `data`, objects and arrays walked. */
function pathsOf(data: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (typeof data !== "object" || data === null) return [];
  const keys = Array.isArray(data) ? data.map((_, index) => index) : Object.keys(data);
  return keys.flatMap((key) => {
    const path = [...prefix, key];
    return [path, ...pathsOf((data as Record<string | number, unknown>)[key], path)];
  });
}

function withValue(data: unknown, path: (string | number)[], value: unknown): unknown {
  const copy = structuredClone(data) as Record<string | number, unknown>;
  let at = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  const last = path[path.length - 1];
  if (value === undefined && !Array.isArray(at)) delete at[last];
  else at[last] = value;
  return copy;
}

/** Variations of `data`: each field replaced by each value or removed, and an unknown field added in each mapping. */
function* variations(data: unknown): Generator<unknown> {
  yield data;
  for (const path of pathsOf(data)) for (const value of replacements) yield withValue(data, path, value);
  for (const path of [[], ...pathsOf(data)]) {
    const at = path.reduce<unknown>((value, key) => (value as Record<string | number, unknown>)[key], data);
    if (typeof at === "object" && at !== null && !Array.isArray(at))
      yield withValue(data, [...path, "unknownField"], 1);
  }
}

/** Asserts the contract for `data`; whether the plain path answered. */
function holdsContract(data: unknown, label: string): boolean {
  const answer = plainSpecValue(data);
  if (answer === undefined) return false;
  const zod = specSchema.safeParse(data, { reportInput: true, jitless: true });
  assert.ok(zod.success, `${label}: plain-spec accepted what zod refuses: ${JSON.stringify(data)}`);
  assert.deepStrictEqual(answer, zod.data, label);
  assert.equal(JSON.stringify(answer), JSON.stringify(zod.data), `${label}: key order`);
  return true;
}

describe("plain specs without zod", () => {
  const specs = [plain, plainPullRequest, ...repositorySpecs()];

  test("the repository holds specs to compare, plain ones among them", () => {
    assert.ok(specs.length > 20, `${specs.length} specs found`);
    const answered = specs.filter((text) => {
      const yaml = parseLocatedYaml(text, "loop.yaml");
      return yaml.ok && holdsContract(yaml.yaml.data, text);
    });
    assert.ok(answered.length >= 10, `${answered.length} answered by plain-spec`);
  });

  test("each spec and each variation: no answer, or zod's answer", () => {
    let answered = 0;
    let compared = 0;
    for (const text of specs) {
      const yaml = parseLocatedYaml(text, "loop.yaml");
      if (!yaml.ok) continue;
      for (const data of variations(yaml.yaml.data)) {
        compared++;
        if (holdsContract(data, `${text}\nvariation ${compared}`)) answered++;
      }
    }
    assert.ok(compared > 5000, `${compared} compared`);
    assert.ok(answered > 1000, `${answered} answered by plain-spec`);
  });

  test("a plain spec's parse is the schema's: trimmed goal, defaults, durations in ms", () => {
    const { spec } = parseSpecTextForAnyMode(plain, "loop.yaml", "/work");
    assert.equal(spec.goal, "A plain spec.");
    assert.deepEqual(spec.gates[0].timeout, 600_000);
    assert.deepEqual(spec.gates[2].timeout, 90_000);
    assert.deepEqual(spec.budget.wallClockPerIteration, 5_400_000);
    assert.deepEqual(spec.scope, { allow: ["src/**"], deny: [], protect: ["test/**"] });
    assert.deepEqual(spec.finish, { action: "branch", forge: "auto", draft: false, labels: [] });
    assert.equal(spec.branch, "loop/plain-one");
    assert.equal(spec.maker?.run, "/work/agent.sh");
  });
});
