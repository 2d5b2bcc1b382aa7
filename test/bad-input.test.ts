/**
 * Bad input, end to end through the real CLI: every mistake a user can make gets one clear line per
 * problem, no stack trace, exit code 2, and leaves nothing behind (no loop, no branch, no touched file).
 */
import assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type CliResult, createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

let sandbox: Sandbox;
before(async () => {
  sandbox = await createSandbox({ "README.md": "# repo\n", "answer.txt": "0\n" });
});
after(() => sandbox.cleanup());

/** Runs the CLI from the sandbox root, where the specs live, so problem lines name them relatively. */
const cli = (...args: string[]) => sandbox.cli(args, { cwd: sandbox.root });

/** A valid spec for a loop that succeeds in one iteration; `fields` are extra top-level lines. */
const goodSpec = (name: string, fields = "") => `name: ${name}
goal: answer.txt says 42.
repo: ./repo
maker:
  engine: scripted
  turns:
    - { say: "wrote the answer", write: { answer.txt: "42\\n" } }
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt", timeout: 20s }
budget: { maxIterations: 2 }
${fields}`;

/** Asserts a user error: exit 2, the expected lines on stderr, no stack trace, nothing on stdout. */
function assertUsageError(result: CliResult, ...patterns: RegExp[]): void {
  assert.equal(result.code, 2, `exit code; stderr: ${result.stderr}; stdout: ${result.stdout}`);
  for (const pattern of patterns) assert.match(result.stderr, pattern);
  assert.doesNotMatch(result.stderr, /\n\s+at .+[(:]\d+/, "no stack trace");
  assert.doesNotMatch(result.stderr, /internal error/);
}

async function assertNoLoopCreated(): Promise<void> {
  const list = await sandbox.cli(["ls", "--all", "--json"]);
  assert.equal(list.code, 0, list.stderr);
  assert.deepEqual(JSON.parse(list.stdout), []);
  assert.equal(await sandbox.git("branch", "--list", "loop/*"), "");
}

test("a missing spec file is one line naming it, exit 2, for run and validate", async () => {
  for (const command of ["run", "validate"]) {
    const result = await cli(command, "no-such-spec.yaml");
    assertUsageError(result, /^no-such-spec\.yaml: no such file\n$/);
  }
  assertUsageError(await cli("run"), /^loop\.yaml: no such file\n$/);
});

test("malformed YAML names the file and line, exit 2", async () => {
  await sandbox.spec(
    "name: broken\ngoal: [never closed\nmaker: { engine: scripted }\n",
    join(sandbox.root, "broken.yaml"),
  );
  const result = await cli("run", "broken.yaml");
  assertUsageError(result, /^broken\.yaml:\d+: invalid YAML: .+\n$/);
  await assertNoLoopCreated();
});

test("a spec with several problems prints each as file:line: field: message, exit 2", async () => {
  await sandbox.spec(
    `name: Not_A_Name
goal: something
repo: ./repo
maker: { engine: scripted, turns: [{ say: hi }] }
gates:
  - { id: tests, kind: tests-pass, run: "true" }
  - { id: types, kind: build-succeeds }
  - { id: odd, kind: vibes-check, run: "true" }
budget: { maxIterations: -1, wallClockPerIteration: soon }
colour: blue
`,
    join(sandbox.root, "many.yaml"),
  );
  for (const command of ["validate", "run"]) {
    const result = await cli(command, "many.yaml");
    assertUsageError(result);
    const lines = result.stderr.trimEnd().split("\n");
    for (const line of lines) assert.match(line, /^many\.yaml:\d+: [\w.[\]]+: .+$/);
    assert.ok(lines.includes("many.yaml:1: name: use lowercase letters, digits and -"), result.stderr);
    assert.ok(lines.includes("many.yaml:7: gates[1].run: required for kind build-succeeds"), result.stderr);
    assert.ok(
      lines.some((line) => line.startsWith("many.yaml:8: gates[2].kind: ") && line.includes("vibes-check")),
      result.stderr,
    );
    assert.ok(
      lines.some((line) => line.startsWith("many.yaml:9: budget.maxIterations: ")),
      result.stderr,
    );
    assert.ok(
      lines.some((line) => line.startsWith("many.yaml:9: budget.wallClockPerIteration: ")),
      result.stderr,
    );
    assert.ok(
      lines.some((line) => line.startsWith("many.yaml:10: colour: ")),
      result.stderr,
    );
    assert.equal(lines.length, 6, result.stderr);
  }
  await assertNoLoopCreated();
});

test("an unknown engine is named with its field, exit 2", async () => {
  await sandbox.spec(
    goodSpec("unknown-engine").replace("engine: scripted", "engine: gpt-7"),
    join(sandbox.root, "engine.yaml"),
  );
  const result = await cli("run", "engine.yaml");
  assertUsageError(result, /^engine\.yaml:5: maker\.engine: .*'gpt-7'/m);
  await assertNoLoopCreated();
});

test("a gate without a command is refused with the gate's field, exit 2", async () => {
  await sandbox.spec(
    goodSpec("no-command").replace(`run: "grep -qx 42 answer.txt", `, ""),
    join(sandbox.root, "gate.yaml"),
  );
  const result = await cli("validate", "gate.yaml");
  assertUsageError(result, /^gate\.yaml:9: gates\[0\]\.run: required for kind tests-pass\n$/);
});

test("a repo that is a plain folder, or no folder at all, is not a git repository, exit 2", async () => {
  await mkdir(join(sandbox.root, "plain"), { recursive: true });
  await sandbox.spec(
    goodSpec("plain").replace("repo: ./repo", "repo: ./plain"),
    join(sandbox.root, "plain.yaml"),
  );
  assertUsageError(await cli("run", "plain.yaml"), /^plain\.yaml: not a git repository: .*plain\n$/);
  await sandbox.spec(
    goodSpec("missing").replace("repo: ./repo", "repo: ./not-there"),
    join(sandbox.root, "missing.yaml"),
  );
  assertUsageError(
    await cli("validate", "missing.yaml"),
    /^missing\.yaml: not a git repository: .*not-there\n$/,
  );
  await assertNoLoopCreated();
});

test("an unknown base is named, exit 2", async () => {
  await sandbox.spec(goodSpec("unknown-base", "base: no-such-branch\n"), join(sandbox.root, "base.yaml"));
  assertUsageError(await cli("run", "base.yaml"), /^base\.yaml: unknown base 'no-such-branch' in .+\n$/);
  await assertNoLoopCreated();
});

test("a gate command that does not exist is refused by validate and run; nothing is created", async () => {
  await sandbox.spec(
    goodSpec("missing-tool").replace("grep -qx 42 answer.txt", "no-such-tool --check answer.txt"),
    join(sandbox.root, "tool.yaml"),
  );
  for (const command of ["validate", "run"]) {
    assertUsageError(
      await cli(command, "tool.yaml"),
      /^tool\.yaml: gates\[0\]\.run: command not found: no-such-tool\n$/,
    );
  }
  await assertNoLoopCreated();
});

test("validate of a good spec prints the plan and exits 0, spending nothing", async () => {
  await sandbox.spec(goodSpec("good-plan"), join(sandbox.root, "good.yaml"));
  const result = await cli("validate", "good.yaml");
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^good\.yaml: valid\n/);
  assert.match(result.stdout, /loop good-plan in .*repo\n/);
  assert.match(result.stdout, /branch loop\/good-plan from HEAD/);
  assert.match(result.stdout, /gate answer \(tests-pass\): grep -qx 42 answer\.txt \[timeout 20s\]/);
  assert.match(result.stdout, /gate verifier-approves: always on/);
  assert.match(result.stdout, /budget: 2 iterations/);
  await assertNoLoopCreated();
});

test("schema prints a JSON Schema that parses and describes the spec", async () => {
  const result = await cli("schema");
  assert.equal(result.code, 0, result.stderr);
  const schema = JSON.parse(result.stdout);
  assert.match(schema.$schema, /json-schema\.org/);
  assert.equal(schema.type, "object");
  for (const field of ["name", "goal", "maker", "gates", "budget", "scope", "finish"]) {
    assert.ok(schema.properties[field], `schema has ${field}`);
  }
  assert.deepEqual(
    [...schema.required].sort(),
    ["goal", "name"],
    "maker is optional: hook mode needs none; run requires it",
  );
});

test("an unknown loop name for show, resume and cancel is exit 2", async () => {
  for (const command of ["show", "resume", "cancel", "report", "brief"]) {
    assertUsageError(
      await cli(command, "no-such-loop"),
      /^loopwright: no loop named or with id 'no-such-loop'/,
    );
  }
});

test("a dirty user checkout does not matter: the loop runs, the user's files and branch are untouched", async () => {
  await sandbox.git("checkout", "-q", "-b", "feature");
  await sandbox.write({ "answer.txt": "staged edit\n" });
  await sandbox.git("add", "answer.txt");
  await sandbox.write({ "README.md": "# repo\nunstaged edit\n", "scratch/notes.txt": "untracked\n" });
  const statusBefore = await sandbox.git("status", "--porcelain", "--untracked-files=all");
  assert.match(statusBefore, /scratch\/notes\.txt/);

  await sandbox.spec(goodSpec("dirty-checkout"), join(sandbox.root, "dirty.yaml"));
  const run = await cli("run", "dirty.yaml");
  assert.equal(run.code, 0, run.stderr + run.stdout);
  assert.match(run.stdout, /stopped: verified/);

  assert.equal(await sandbox.git("branch", "--show-current"), "feature");
  assert.equal(await sandbox.git("status", "--porcelain", "--untracked-files=all"), statusBefore);
  assert.equal(await sandbox.git("diff", "--cached", "--name-only"), "answer.txt");
  assert.equal(await readFile(join(sandbox.repo, "answer.txt"), "utf8"), "staged edit\n");
  assert.equal(await readFile(join(sandbox.repo, "README.md"), "utf8"), "# repo\nunstaged edit\n");
  assert.equal(await readFile(join(sandbox.repo, "scratch/notes.txt"), "utf8"), "untracked\n");
  assert.equal(await sandbox.git("stash", "list"), "");
  // The loop branched from the committed HEAD: none of the user's uncommitted work leaked into it.
  assert.equal(await sandbox.git("show", "loop/dirty-checkout:answer.txt"), "42");
  assert.equal(await sandbox.git("show", "loop/dirty-checkout:README.md"), "# repo");
  assert.equal(await sandbox.git("ls-tree", "-r", "--name-only", "loop/dirty-checkout", "scratch"), "");
});

test("--iteration that is not a number is exit 2", async () => {
  // Runs after the dirty-checkout test, which left the loop dirty-checkout behind.
  for (const command of ["brief", "logs"]) {
    assertUsageError(
      await sandbox.cli([command, "dirty-checkout", "--iteration", "abc"]),
      /^loopwright: --iteration: not an iteration number: abc\n$/,
    );
  }
  const ok = await sandbox.cli(["brief", "dirty-checkout", "--iteration", "1"]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /## Goal\nanswer\.txt says 42\./);
});

test("a home folder that cannot be made is a clear error, not a spin (Node's recursive mkdir loops under /proc)", async () => {
  const file = join(sandbox.root, "a-file");
  await writeFile(file, "not a folder\n");
  for (const [home, code] of [
    ["/proc/loopwright-home", "ENOENT"],
    [file, "EEXIST"],
    [join(file, "home"), "ENOTDIR"],
  ]) {
    for (const args of [["ls"], ["show", "nothing"]]) {
      const result = await sandbox.cli(args, { env: { LOOPWRIGHT_HOME: home }, timeoutMs: 20_000 });
      assert.equal(result.code, 2, `${args[0]} with ${home}: ${result.stderr}`);
      assert.match(result.stderr, new RegExp(`cannot create loopwright's home folder ${home} \\(${code}\\)`));
    }
  }
});
