/**
 * `ls`, `show <loop>`, `validate [spec]` and `run [spec]` in their plain forms are parsed without
 * commander (src/cli/read-commands.ts, run's in src/cli/main.ts); the read-only ones write with fs.writeSync (src/cli/output.ts). The forms are commander's
 * own: the same options and arguments, the same values for the action; any other form is commander's.
 * The writer keeps every byte in order, drops the rest when the reader is gone, and hands the rest to
 * the stream when a direct write cannot go on.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { Command } from "commander";
import { defineCommands } from "../src/cli/commands.ts";
import { plainCommandForms } from "../src/cli/main.ts";
import { directWriter } from "../src/cli/output.ts";
import { parseCommandForm, parseReadCommand, readCommandForms } from "../src/cli/read-commands.ts";
import { createSandbox } from "./support/loop-sandbox.ts";

/** The values commander passes the action of `argv`'s command (its arguments, then its options), or its error code. */
async function commanderValues(argv: string[]): Promise<unknown[] | string> {
  const program = new Command("loopwright").exitOverride().configureOutput({
    writeOut: () => {},
    writeErr: () => {},
  });
  defineCommands(program, () => {}, argv[0]);
  let values: unknown[] | undefined;
  for (const command of program.commands) {
    command.exitOverride().action((...args: unknown[]) => {
      values = args.slice(0, -1);
    });
  }
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (error) {
    return (error as { code: string }).code;
  }
  return values ?? "no action";
}

describe("the read-only commands and run without commander", () => {
  test("each form has the options and arguments commander defines for the command", () => {
    assert.deepEqual(Object.keys(plainCommandForms), [...Object.keys(readCommandForms), "run"]);
    for (const [name, form] of Object.entries(plainCommandForms)) {
      const program = new Command("loopwright");
      defineCommands(program, () => {}, name);
      const [command] = program.commands;
      assert.deepEqual(
        command.options.map((option) => ({
          flags: option.flags,
          boolean: !option.required && !option.optional,
        })),
        form.options.map((flags) => ({ flags, boolean: true })),
        name,
      );
      assert.deepEqual(
        command.registeredArguments.map((argument) => ({
          required: argument.required,
          defaultValue: argument.defaultValue,
          variadic: argument.variadic,
        })),
        form.arguments.map((argument) => ({
          required: argument.required,
          defaultValue: argument.defaultValue,
          variadic: false,
        })),
        name,
      );
    }
  });

  test("a plain form gives the action what commander gives it", async () => {
    for (const argv of [
      ["ls"],
      ["ls", "--json"],
      ["ls", "--all", "--json"],
      ["ls", "--json", "--all", "--json"],
      ["show", "a-loop"],
      ["show", "--json", "a-loop"],
      ["show", "a-loop", "--json"],
      ["show", ""],
      ["validate"],
      ["validate", "spec.yaml"],
      ["validate", "a spec with spaces.yaml"],
      ["run"],
      ["run", "spec.yaml"],
      ["run", "--json", "spec.yaml"],
      ["run", "spec.yaml", "--detach", "--json"],
      ["run", "--detach"],
    ]) {
      const read = parseCommandForm(argv, plainCommandForms);
      assert.ok(read, `${argv.join(" ")} is a plain form`);
      assert.deepEqual(read.values, await commanderValues(argv), argv.join(" "));
      // The read-only commands' own table (their bundle's) takes theirs alike, and no `run`.
      if (argv[0] === "run") assert.equal(parseReadCommand(argv), undefined, argv.join(" "));
      else assert.deepEqual(parseReadCommand(argv), read, argv.join(" "));
    }
  });

  test("any other form is left to commander", async () => {
    for (const argv of [
      [],
      ["--help"],
      ["run", "a.yaml", "b.yaml"],
      ["run", "--help"],
      ["run", "--jsn"],
      ["run", "--", "a.yaml"],
      ["report", "a-loop"],
      ["ls", "--help"],
      ["ls", "-h"],
      ["ls", "extra"],
      ["ls", "--json=1"],
      ["ls", "--al"],
      ["show"],
      ["show", "a", "b"],
      ["show", "--", "--json"],
      ["show", "-"],
      ["show", "-x"],
      ["validate", "a.yaml", "b.yaml"],
      ["validate", "--json"],
      ["toString"],
      ["constructor"],
    ])
      assert.equal(parseCommandForm(argv, plainCommandForms), undefined, argv.join(" "));
    // Commander refuses these (or answers with help): the plain path must never take them.
    for (const argv of [
      ["ls", "extra"],
      ["show"],
      ["show", "a", "b"],
      ["validate", "--json"],
      ["ls", "-h"],
      ["run", "a.yaml", "b.yaml"],
      ["run", "--jsn"],
    ])
      assert.equal(typeof (await commanderValues(argv)), "string", argv.join(" "));
  });
});

describe("the direct writer", () => {
  /** A stream stand-in that records what it is given. */
  function recordingStream() {
    const written: string[] = [];
    const stream = {
      on: () => stream,
      write: (data: string | Uint8Array) => {
        written.push(Buffer.from(data).toString("utf8"));
        return true;
      },
    };
    return { written, stream: () => stream as unknown as NodeJS.WriteStream };
  }

  test("writes every byte in order, through short writes, without the stream", () => {
    const bytes: number[] = [];
    const { written, stream } = recordingStream();
    // At most 3 bytes a call: a multi-byte character is split across calls and still arrives whole.
    const write = directWriter(1, stream, (_fd, buffer, offset) => {
      const chunk = buffer.subarray(offset, offset + 3);
      bytes.push(...chunk);
      return chunk.length;
    });
    write("✓ tests\n");
    write("");
    write("done\n");
    assert.equal(Buffer.from(bytes).toString("utf8"), "✓ tests\ndone\n");
    assert.deepEqual(written, []);
  });

  test("a closed pipe (EPIPE) drops this text and every later one, quietly", () => {
    let calls = 0;
    const { written, stream } = recordingStream();
    const write = directWriter(1, stream, () => {
      calls++;
      throw Object.assign(new Error("write EPIPE"), { code: "EPIPE" });
    });
    write("one\n");
    write("two\n");
    assert.equal(calls, 1);
    assert.deepEqual(written, []);
  });

  test("any other failure (EAGAIN on a non-blocking pipe) hands the unwritten rest and every later text to the stream", () => {
    const direct: string[] = [];
    const { written, stream } = recordingStream();
    let calls = 0;
    const write = directWriter(1, stream, (_fd, buffer, offset) => {
      calls++;
      if (calls === 1) {
        direct.push(buffer.subarray(offset, offset + 4).toString());
        return 4;
      }
      throw Object.assign(new Error("write EAGAIN"), { code: "EAGAIN" });
    });
    write("first line\n");
    write("second line\n");
    assert.deepEqual(direct, ["firs"]);
    assert.deepEqual(written, ["t line\n", "second line\n"]);
    assert.equal(calls, 2, "no direct write after the fallback");
  });
});

test("validate's sandbox probe starts before the CLI loads, once; its answer is in the plan", async () => {
  const sandbox = await createSandbox();
  try {
    // A bwrap that records each start and refuses, so the plan must carry the probe's answer.
    const tools = join(sandbox.root, "tools");
    const starts = join(sandbox.root, "bwrap-starts");
    mkdirSync(tools);
    writeFileSync(
      join(tools, "bwrap"),
      `#!/bin/sh\necho started >> '${starts}'\necho 'bwrap: probe refused' >&2\nexit 1\n`,
    );
    chmodSync(join(tools, "bwrap"), 0o755);
    const env = { PATH: `${tools}:${process.env.PATH}` };
    const spec = await sandbox.spec(
      `name: probed\ngoal: Be checked.\nrepo: ./repo\nmaker: { engine: command, run: "true" }\nverifier: { engine: command, run: "cat" }\ngates:\n  - { id: tests, kind: tests-pass, run: "true" }\n`,
    );
    for (const round of [1, 2]) {
      const result = await sandbox.cli(["validate", spec], { env });
      assert.equal(result.code, 0, result.stderr);
      assert.match(
        result.stdout,
        /warning: no operating-system sandbox \(bwrap \(bubblewrap\) cannot create a sandbox here: bwrap: probe refused\)/,
      );
      assert.equal(readFileSync(starts, "utf8"), "started\n".repeat(round), `validate ${round}: one probe`);
    }
    // Any other form of validate is commander's, and starts no probe of its own before it.
    const help = await sandbox.cli(["validate", "--help"], { env });
    assert.equal(help.code, 0, help.stderr);
    assert.equal(readFileSync(starts, "utf8"), "started\n".repeat(2));
  } finally {
    await sandbox.cleanup();
  }
});
