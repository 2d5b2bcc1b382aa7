/**
 * Hostile spec files, through the real CLI (`validate` and `run`): alias bombs, huge files, FIFOs and
 * symlinks to other files are spec errors (exit 2, one line naming the file), fast, and never echo
 * the file they point at.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type CliResult, createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

let sandbox: Sandbox;
before(async () => {
  sandbox = await createSandbox({ "README.md": "# repo\n" });
});
after(() => sandbox.cleanup());

const cli = (...args: string[]) => sandbox.cli(args, { cwd: sandbox.root, timeoutMs: 30_000 });

function assertSpecError(result: CliResult, pattern: RegExp): void {
  assert.equal(result.code, 2, `exit code; stderr: ${result.stderr.slice(0, 500)}`);
  assert.match(result.stderr, pattern);
  assert.doesNotMatch(result.stderr, /internal error/);
  assert.doesNotMatch(result.stderr, /\n\s+at .+[(:]\d+/, "no stack trace");
}

test("a billion-laughs alias bomb is a spec error, exit 2, for validate and run", async () => {
  const levels = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"];
  for (const name of "bcdefghi") {
    const previous = String.fromCharCode(name.charCodeAt(0) - 1);
    levels.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(", ")}]`);
  }
  await writeFile(join(sandbox.root, "bomb.yaml"), `${levels.join("\n")}\n`);
  for (const command of ["validate", "run"]) {
    assertSpecError(await cli(command, "bomb.yaml"), /^bomb\.yaml: invalid YAML: too many aliases/m);
  }
});

test("150 aliases of one anchor are a spec error, exit 2", async () => {
  const aliases = Array.from({ length: 150 }, (_, index) => `  - *word # ${index}`).join("\n");
  await writeFile(join(sandbox.root, "aliases.yaml"), `name: many\nword: &word hello\nlist:\n${aliases}\n`);
  for (const command of ["validate", "run"]) {
    assertSpecError(await cli(command, "aliases.yaml"), /^aliases\.yaml: invalid YAML: too many aliases/m);
  }
});

test("a spec larger than 1 MiB is refused at once, without reading it", async () => {
  const line = `# ${"x".repeat(1021)}\n`;
  await writeFile(join(sandbox.root, "huge.yaml"), `name: huge\n${line.repeat(50 * 1024)}`);
  for (const command of ["validate", "run"]) {
    const started = performance.now();
    const result = await cli(command, "huge.yaml");
    assertSpecError(result, /^huge\.yaml: too large \(50\.0 MiB; at most 1 MiB\)\n$/);
    assert.ok(performance.now() - started < 10_000, "refused quickly");
  }
});

test("a FIFO spec does not hang validate or run: it is not a regular file", async () => {
  execFileSync("mkfifo", [join(sandbox.root, "fifo.yaml")]);
  for (const command of ["validate", "run"]) {
    assertSpecError(await cli(command, "fifo.yaml"), /^fifo\.yaml: not a regular file \(a FIFO\)\n$/);
  }
});

test("a spec symlinked to a file that is no spec quotes a bounded excerpt of it, never the whole file", async () => {
  const secretTail = "ZZ-the-end-of-the-private-file";
  const lines = Array.from({ length: 40 }, (_, index) => `user${index}:x:${index}:${index}::/home/u:/bin/sh`);
  await writeFile(join(sandbox.root, "private.txt"), `${lines.join("\n")}\n${secretTail}\n`);
  await symlink(join(sandbox.root, "private.txt"), join(sandbox.root, "linked.yaml"));
  await symlink("/etc/passwd", join(sandbox.root, "passwd.yaml"));
  for (const command of ["validate", "run"]) {
    const result = await cli(command, "linked.yaml");
    assertSpecError(result, /^linked\.yaml:1: expected a mapping, got the value "user0:x:0:0/);
    assert.doesNotMatch(result.stderr, new RegExp(secretTail));
    assert.ok(result.stderr.length < 300, `bounded: ${result.stderr.length} characters`);
    const passwd = await cli(command, "passwd.yaml");
    assert.equal(passwd.code, 2, passwd.stderr);
    assert.ok(passwd.stderr.length < 300, `bounded: ${passwd.stderr.length} characters`);
  }
});

test("a long value in a field problem is quoted only in part", async () => {
  const long = `gpt-${"7".repeat(5000)}`;
  await writeFile(
    join(sandbox.root, "long.yaml"),
    `name: long\ngoal: g\nrepo: ./repo\nmaker: { engine: "${long}" }\n`,
  );
  const result = await cli("validate", "long.yaml");
  assertSpecError(result, /^long\.yaml:4: maker\.engine: /m);
  for (const line of result.stderr.trimEnd().split("\n")) assert.ok(line.length <= 400, line.slice(0, 80));
});

test("a scripted engine's script file that is a FIFO or too large is a spec error, not a hang", async () => {
  execFileSync("mkfifo", [join(sandbox.root, "turns-fifo.yaml")]);
  await writeFile(join(sandbox.root, "turns-huge.yaml"), `turns:\n${"# padding\n".repeat(120_000)}`);
  for (const [script, problem] of [
    ["turns-fifo.yaml", /maker\.script: turns-fifo\.yaml: not a regular file \(a FIFO\)/],
    ["turns-huge.yaml", /maker\.script: turns-huge\.yaml: too large \(1\.1 MiB; at most 1 MiB\)/],
  ] as const) {
    await writeFile(
      join(sandbox.root, "scripted.yaml"),
      `name: scripted\ngoal: g\nrepo: ./repo\nmaker: { engine: scripted, script: ${script} }\n`,
    );
    assertSpecError(await cli("validate", "scripted.yaml"), problem);
  }
});

test("a strategy named alone that needs settings (tasks, metric) is a spec error naming them, exit 2", async () => {
  for (const kind of ["tasks", "metric"]) {
    await writeFile(
      join(sandbox.root, `bare-${kind}.yaml`),
      `name: bare\ngoal: g\nmaker: { engine: command, run: "true" }\ngates:\n  - { id: t, kind: tests-pass, run: "true" }\nstrategy: ${kind}\n`,
    );
    for (const command of ["validate", "run"])
      assertSpecError(
        await cli(command, `bare-${kind}.yaml`),
        new RegExp(`strategy: expected a mapping, got '${kind}'`),
      );
  }
});

test("a YAML 1.1 merge key whose source is not a map is a spec error, exit 2, not an internal error", async () => {
  await writeFile(
    join(sandbox.root, "merge.yaml"),
    '%YAML 1.1\n---\n<<: 1\nname: merge\ngoal: "x"\ngates: []\n',
  );
  for (const command of ["validate", "run"]) {
    assertSpecError(
      await cli(command, "merge.yaml"),
      /^merge\.yaml: invalid YAML: merge sources must be maps/im,
    );
  }
});

test("a duration longer than a timer can wait is a spec error naming the field, not a timeout that fires at once", async () => {
  // Node's timers hold at most 2^31 - 1 ms (~596 h); a longer one fires after 1 ms, so a gate with
  // `timeout: 1000h` would time out at once. A 400-digit number would be Infinity ms.
  const digits = "1".repeat(400);
  for (const [field, value] of [
    ["timeout", "1000h"],
    ["timeout", `"${digits}"`],
    ["timeout", digits],
  ] as const) {
    await writeFile(
      join(sandbox.root, "long.yaml"),
      `name: long\ngoal: "x"\ngates:\n  - { id: t, kind: tests-pass, run: "true", ${field}: ${value} }\n`,
    );
    for (const command of ["validate", "run"]) {
      // A long value is quoted only in part, so only its start is matched.
      assertSpecError(
        await cli(command, "long.yaml"),
        /^long\.yaml:4: gates\[0\]\.timeout: (too long: |expected a number or text, got Infinity$)/m,
      );
    }
  }
  await writeFile(
    join(sandbox.root, "long.yaml"),
    `name: long\ngoal: "x"\nbudget: { wallClockPerIteration: 700h }\ngates: []\n`,
  );
  assertSpecError(
    await cli("validate", "long.yaml"),
    /^long\.yaml:3: budget\.wallClockPerIteration: too long: "700h" \(at most 596h\)$/m,
  );
});
