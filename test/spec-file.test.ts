import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, describe, test } from "node:test";
import { loadSpecFile, parseSpecText } from "../src/core/spec-file.ts";
import { SpecError } from "../src/errors.ts";

const issueSpec = `name: fix-parser
goal: |
  The parser tests pass.
repo: .
base: HEAD
branch: loop/fix-parser
maker:    { engine: command, run: ./agent.sh }
verifier: { engine: command, run: ./verify.sh }
setup: [ "npm ci" ]
gates:
  - { id: tests, kind: tests-pass, run: "node --test", timeout: 10m }
  - { id: types, kind: build-succeeds, run: "npx tsc --noEmit" }
  - { id: perf, kind: eval-script, run: "node bench/score.js", required: false }
  - { id: rollback, kind: agent-check, assert: "The migration can be rolled back." }
budget: { maxIterations: 3, wallClockPerIteration: 60m, maxCostUsdPerIteration: 10, maxCostUsdPerDay: 25 }
scope: { allow: ["src/**", "test/**"], deny: [".env*"], protect: ["bench/**"] }
finish: { action: branch }
`;

const temporaryRoot = mkdtempSync(join(tmpdir(), "loopwright-spec-file-"));
after(() => rmSync(temporaryRoot, { recursive: true, force: true }));
let folderCount = 0;

/** A fresh folder holding `files` (path → content). */
function folderWith(files: Record<string, string>): string {
  const folder = join(temporaryRoot, `case-${++folderCount}`);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(folder, path, ".."), { recursive: true });
    writeFileSync(join(folder, path), content);
  }
  mkdirSync(folder, { recursive: true });
  return folder;
}

/** The issue spec with 1-based lines replaced (`undefined` text keeps the line). */
function issueSpecWith(changes: Record<number, string>): string {
  return issueSpec
    .split("\n")
    .map((line, index) => changes[index + 1] ?? line)
    .join("\n");
}

/** The problems `parseSpecText` reports for `text` labelled `loop.yaml`; fails the test when it accepts it. */
function problemsOf(text: string, folder = temporaryRoot): string[] {
  try {
    parseSpecText(text, "loop.yaml", folder);
  } catch (error) {
    assert.ok(error instanceof SpecError, `expected a SpecError, got ${String(error)}`);
    return error.problems;
  }
  assert.fail("the spec was accepted");
}

describe("loading a valid spec", () => {
  test("the spec from the issue loads with defaults filled and durations in milliseconds", async () => {
    const folder = folderWith({ "loop.yaml": issueSpec });
    const loaded = await loadSpecFile(join(folder, "loop.yaml"));
    assert.equal(loaded.specPath, join(folder, "loop.yaml"));
    assert.equal(loaded.specDirectory, folder);
    assert.equal(loaded.repoPath, folder);
    const { spec } = loaded;
    assert.equal(spec.name, "fix-parser");
    assert.equal(spec.goal, "The parser tests pass.");
    assert.equal(spec.branch, "loop/fix-parser");
    assert.deepEqual(spec.maker, { engine: "command", run: join(folder, "agent.sh") });
    assert.deepEqual(spec.verifier, { engine: "command", run: join(folder, "verify.sh") });
    assert.deepEqual(spec.setup, ["npm ci"]);
    assert.deepEqual(spec.gates, [
      {
        id: "tests",
        kind: "tests-pass",
        run: "node --test",
        timeout: 600_000,
        required: true,
        parallel: true,
        baseline: "strict",
        flaky: "block",
        rerun: 1,
      },
      {
        id: "types",
        kind: "build-succeeds",
        run: "npx tsc --noEmit",
        timeout: 600_000,
        required: true,
        parallel: true,
        baseline: "strict",
        flaky: "block",
        rerun: 1,
      },
      {
        id: "perf",
        kind: "eval-script",
        run: "node bench/score.js",
        timeout: 600_000,
        required: false,
        parallel: true,
        baseline: "strict",
        flaky: "block",
        rerun: 1,
      },
      {
        id: "rollback",
        kind: "agent-check",
        assert: "The migration can be rolled back.",
        timeout: 600_000,
        required: true,
        parallel: true,
        baseline: "strict",
        flaky: "block",
        rerun: 1,
      },
    ]);
    assert.deepEqual(spec.budget, {
      maxIterations: 3,
      wallClockPerIteration: 3_600_000,
      maxCostUsdPerIteration: 10,
      maxCostUsdPerDay: 25,
    });
    assert.deepEqual(spec.scope, { allow: ["src/**", "test/**"], deny: [".env*"], protect: ["bench/**"] });
    assert.deepEqual(spec.finish, { action: "branch", forge: "auto", draft: false, labels: [] });
  });

  test("a minimal spec gets every default, the branch named after the loop", () => {
    const { spec, repoPath } = parseSpecText(
      "name: tidy\ngoal: Lint is clean.\nmaker: { engine: command, run: make fix }\n",
      "loop.yaml",
      join(temporaryRoot, "somewhere"),
    );
    assert.equal(repoPath, join(temporaryRoot, "somewhere"));
    assert.equal(spec.branch, "loop/tidy");
    assert.equal(spec.base, "HEAD");
    assert.deepEqual(spec.verifier, { engine: "auto" });
    assert.deepEqual(spec.gates, []);
    assert.deepEqual(spec.scope, { allow: ["**"], deny: [], protect: [] });
    assert.deepEqual(spec.budget, {
      maxIterations: 3,
      wallClockPerIteration: 3_600_000,
      maxCostUsdPerIteration: 10,
      maxCostUsdPerDay: 25,
    });
    assert.equal(spec.maker.run, "make fix", "a command not starting with ./ is left as written");
  });
});

describe("problems point at the line and field", () => {
  test("a missing required field points at its parent", () => {
    assert.deepEqual(problemsOf(issueSpecWith({ 7: "# no maker yet" })), [
      "loop.yaml:1: maker: required to run a loop (hook mode needs only name, goal and gates)",
    ]);
  });

  test("a gate without a command points at the gate's line", () => {
    assert.deepEqual(problemsOf(issueSpecWith({ 12: "  - { id: types, kind: build-succeeds }" })), [
      "loop.yaml:12: gates[1].run: required for kind build-succeeds",
    ]);
  });

  test("a block-style gate without a command points at the gate's first line", () => {
    const text = issueSpecWith({ 12: "  - id: types\n    kind: tests-pass\n    timeout: 5m" });
    assert.deepEqual(problemsOf(text), ["loop.yaml:12: gates[1].run: required for kind tests-pass"]);
  });

  test("an agent-check without an assertion", () => {
    assert.deepEqual(problemsOf(issueSpecWith({ 14: "  - { id: rollback, kind: agent-check }" })), [
      "loop.yaml:14: gates[3].assert: required for kind agent-check",
    ]);
  });

  test("a wrong type inside a block mapping names the nested field and its line", () => {
    const text = issueSpecWith({ 15: "budget:\n  maxCostUsdPerDay: 25\n  maxIterations: three" });
    assert.deepEqual(problemsOf(text), [
      "loop.yaml:17: budget.maxIterations: expected a number, got 'three'",
    ]);
  });

  test("a bad duration", () => {
    const text = issueSpecWith({
      11: '  - { id: tests, kind: tests-pass, run: "node --test", timeout: 10 minutes }',
    });
    assert.deepEqual(problemsOf(text), [
      'loop.yaml:11: gates[0].timeout: not a duration: "10 minutes" (use 30s, 10m, 2h)',
    ]);
  });

  test("an unknown engine lists the known ones", () => {
    assert.deepEqual(problemsOf(issueSpecWith({ 7: "maker: { engine: foo, run: ./agent.sh }" })), [
      "loop.yaml:7: maker.engine: unknown engine 'foo' (known: command, scripted, claude-code, codex, copilot, builtin)",
    ]);
  });

  test("an unknown field at the top level and nested, with a suggestion for a likely typo", () => {
    const text = issueSpecWith({
      15: "budget:\n  maxIteration: 3",
      17: "finish: { action: branch }\nbogus: true",
    });
    assert.deepEqual(problemsOf(text), [
      "loop.yaml:16: budget.maxIteration: unknown field 'maxIteration' (did you mean maxIterations?)",
      "loop.yaml:19: bogus: unknown field 'bogus'",
    ]);
  });

  test("duplicate gate ids point at the second one", () => {
    const text = issueSpecWith({ 13: '  - { id: tests, kind: eval-script, run: "node bench/score.js" }' });
    assert.deepEqual(problemsOf(text), ["loop.yaml:13: gates[2].id: duplicate gate id tests"]);
  });

  test("several problems are reported together, in line order", () => {
    const text = issueSpecWith({
      1: "name: Fix Parser",
      8: "verifier: { engine: codx }",
      13: "  - { id: perf, kind: eval-script, run: 'node bench/score.js', required: maybe }",
      16: 'scope: { allow: "src/**" }',
    });
    assert.deepEqual(problemsOf(text), [
      "loop.yaml:1: name: use lowercase letters, digits and -",
      "loop.yaml:8: verifier.engine: unknown engine 'codx' (known: command, scripted, claude-code, codex, copilot, builtin, auto)",
      "loop.yaml:13: gates[2].required: expected true or false, got 'maybe'",
      "loop.yaml:16: scope.allow: expected a list, got 'src/**'",
    ]);
  });

  test("a YAML syntax error gives its line", () => {
    const problems = problemsOf(issueSpecWith({ 9: 'setup: [ "npm ci"' }));
    assert.ok(problems.length >= 1);
    assert.match(problems[0], /^loop\.yaml:10: invalid YAML: /);
    assert.deepEqual(problemsOf("name: a\nname: b\n"), [
      "loop.yaml:2: invalid YAML: 'name' is set twice in the same mapping",
    ]);
  });

  test("an empty file, a comments-only file and a top-level list each get one clear line", () => {
    const emptyMessage =
      "loop.yaml: the file is empty; a spec is a mapping of fields: name, goal, maker, gates, ...";
    assert.deepEqual(problemsOf(""), [emptyMessage]);
    assert.deepEqual(problemsOf("# nothing yet\n"), [emptyMessage]);
    assert.deepEqual(problemsOf("\n- name: a\n"), [
      "loop.yaml:2: expected a mapping, got a list; a spec is a mapping of fields: name, goal, maker, gates, ...",
    ]);
  });

  test("a missing file is named as given", async () => {
    const missing = join(temporaryRoot, "nowhere", "loop.yaml");
    await assert.rejects(loadSpecFile(missing), (error: unknown) => {
      assert.ok(error instanceof SpecError);
      assert.deepEqual(error.problems, [`${missing}: no such file`]);
      return true;
    });
  });

  test("problems from a loaded file carry the path as given", async () => {
    const folder = folderWith({
      "loop.yaml": issueSpecWith({ 7: "maker: { engine: foo, run: ./agent.sh }" }),
    });
    const given = relative(process.cwd(), join(folder, "loop.yaml"));
    await assert.rejects(loadSpecFile(given), (error: unknown) => {
      assert.ok(error instanceof SpecError);
      assert.match(
        error.problems[0],
        new RegExp(`^${escapeRegExp(given)}:7: maker\\.engine: unknown engine 'foo'`),
      );
      return true;
    });
  });
});

describe("scripted engines read their script file", () => {
  const scriptedSpec = "name: rehearse\ngoal: Rehearse.\nmaker: { engine: scripted, script: ./turns.yaml }\n";

  test("the script's turns are inlined and the spec no longer refers to the file", () => {
    const folder = folderWith({
      "turns.yaml": "turns:\n  - { say: first, sleep: 2s }\n  - write: { a.txt: hello }\n",
    });
    const { spec } = parseSpecText(scriptedSpec, "loop.yaml", folder);
    assert.deepEqual(spec.maker, {
      engine: "scripted",
      turns: [{ say: "first", sleep: 2000 }, { write: { "a.txt": "hello" } }],
    });
  });

  test("problems in the script are reported against the script file and its lines", () => {
    const folder = folderWith({
      "turns.yaml": "turns:\n  - say: first\n  - sleep: soon\n    shout: loud\n",
    });
    assert.deepEqual(problemsOf(scriptedSpec, folder), [
      'turns.yaml:3: turns[1].sleep: not a duration: "soon" (use 30s, 10m, 2h)',
      "turns.yaml:4: turns[1].shout: unknown field 'shout'",
    ]);
  });

  test("a missing script or an empty one is reported", () => {
    const folder = folderWith({ "empty/turns.yaml": "" });
    assert.deepEqual(problemsOf(scriptedSpec, folderWith({})), [
      "loop.yaml:3: maker.script: turns.yaml: no such file",
    ]);
    assert.deepEqual(problemsOf(scriptedSpec.replace("./turns.yaml", "./empty/turns.yaml"), folder), [
      "empty/turns.yaml: the file is empty; a script is a mapping with turns: [ ... ]",
    ]);
  });
});

describe("commands written relative to the spec", () => {
  test("an engine's ./command becomes absolute and runs from anywhere, even with a space in the path", () => {
    const folder = folderWith({ "with space/agent.sh": '#!/bin/sh\necho "agent ran with $1"\n' });
    const specFolder = join(folder, "with space");
    chmodSync(join(specFolder, "agent.sh"), 0o755);
    const text = "name: a\ngoal: g\nmaker: { engine: command, run: ./agent.sh --fast }\n";
    const { spec } = parseSpecText(text, "loop.yaml", specFolder);
    assert.equal(spec.maker.run, `'${join(specFolder, "agent.sh")}' --fast`);
    const output = execFileSync("sh", ["-c", spec.maker.run ?? ""], { cwd: tmpdir(), encoding: "utf8" });
    assert.equal(output, "agent ran with --fast\n");
  });

  test("a spec in a subfolder of the repository keeps its ./ gate and setup commands: they are the repository's", () => {
    const repository = folderWith({
      "loops/check.sh": "#!/bin/sh\necho the spec folder's\n",
      "scripts/lint.sh": "#!/bin/sh\necho linted\n",
    });
    execFileSync("git", ["init", "--quiet", repository]);
    chmodSync(join(repository, "loops/check.sh"), 0o755);
    chmodSync(join(repository, "scripts/lint.sh"), 0o755);
    const text = [
      "name: sub",
      "goal: g",
      "repo: ..",
      "maker: { engine: command, run: ../scripts/lint.sh }",
      "setup: [ ./scripts/lint.sh --setup ]",
      "gates:",
      "  - { id: lint, kind: lint-clean, run: ./scripts/lint.sh }",
      '  - { id: plain, kind: build-succeeds, run: "node --test" }',
    ].join("\n");
    const { spec, repoPath } = parseSpecText(text, "loops/loop.yaml", join(repository, "loops"));
    assert.equal(repoPath, repository);
    assert.deepEqual(
      spec.gates.map((gate) => gate.run),
      ["./scripts/lint.sh", "node --test"],
    );
    assert.deepEqual(spec.setup, ["./scripts/lint.sh --setup"]);
    assert.equal(
      spec.maker.run,
      join(repository, "scripts/lint.sh"),
      "an engine's path is the spec folder's",
    );
    const atRoot = (command: string) =>
      execFileSync("sh", ["-c", command], { cwd: repository, encoding: "utf8" });
    assert.equal(atRoot(spec.gates[0].run ?? ""), "linted\n");
  });

  test("a spec at the repository root keeps its gate commands as written", () => {
    const repository = folderWith({});
    execFileSync("git", ["init", "--quiet", repository]);
    const text =
      "name: a\ngoal: g\nmaker: { engine: command, run: x }\ngates:\n  - { id: t, kind: tests-pass, run: ./t.sh }\n";
    assert.equal(parseSpecText(text, "loop.yaml", repository).spec.gates[0].run, "./t.sh");
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
