/**
 * The command table (src/cli/commands.ts) defines only the command the first word names, and all of
 * them otherwise: what a user sees does not change. The help lists every command; an unknown command is
 * refused with a suggestion; a command's own help and its option errors are its own.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Command } from "commander";
import { defineCommands } from "../src/cli/commands.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

/** Every command name, from a table defined in full. */
function allNames(): string[] {
  const program = new Command("loopwright");
  defineCommands(program, () => {});
  return program.commands.map((command) => command.name());
}

describe("the command table", () => {
  let sandbox: Sandbox;
  before(async () => {
    sandbox = await createSandbox();
  });
  after(() => sandbox.cleanup());

  test("a first word naming a command defines that command alone, with its arguments and options", () => {
    for (const name of allNames()) {
      const program = new Command("loopwright");
      defineCommands(program, () => {}, name);
      assert.deepEqual(
        program.commands.map((command) => command.name()),
        [name],
      );
    }
    const full = new Command("loopwright");
    defineCommands(full, () => {});
    const alone = new Command("loopwright");
    defineCommands(alone, () => {}, "run");
    const run = full.commands.find((command) => command.name() === "run");
    assert.deepEqual(
      alone.commands[0].options.map((option) => option.flags),
      run?.options.map((option) => option.flags),
    );
    assert.equal(alone.commands[0].description(), run?.description());
  });

  test("anything else sees every command: the help, an unknown command, an option first", async () => {
    assert.ok(allNames().length >= 20);
    const help = await sandbox.cli(["--help"]);
    assert.equal(help.code, 0, help.stderr);
    for (const name of allNames()) assert.match(help.stdout, new RegExp(`\\n  ${name}\\b`));
    const unknown = await sandbox.cli(["valdate", "loop.yaml"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command 'valdate'\n\(Did you mean validate\?\)/);
    const optionFirst = await sandbox.cli(["--json", "ls"]);
    assert.equal(optionFirst.code, 2);
    assert.match(optionFirst.stderr, /unknown option '--json'/);
  });

  test("a command's own help and option errors are its own", async () => {
    const help = await sandbox.cli(["run", "--help"]);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^Usage: loopwright run \[options\] \[spec\]/);
    assert.match(help.stdout, /--detach/);
    const bad = await sandbox.cli(["validate", "--nope"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /unknown option '--nope'/);
  });
});
