/**
 * The CLI: parses arguments with commander and calls the layer below. Command modules load lazily so
 * quick commands start fast; the read-only commands and `run` in their plain forms skip commander (the
 * read-only ones the output streams too: read-commands.ts, output.ts). Every user mistake becomes one line on
 * stderr and exit 2; a bug exits 1.
 */
import { ExitCode, SpecError, UsageError } from "../errors.ts";
import { dropOutputWhenPipeCloses, writeErr } from "./output.ts";
import { parseReadCommand } from "./read-commands.ts";

export async function main(argv: string[]): Promise<number> {
  const read = parseReadCommand(argv);
  if (read) {
    const write = read.form.streams ? (text: string) => process.stderr.write(text) : writeErr;
    if (read.form.streams) {
      dropOutputWhenPipeCloses(process.stdout);
      dropOutputWhenPipeCloses(process.stderr);
    }
    try {
      const action = await read.form.load();
      return (await action(...(read.values as never[]))) ?? 0;
    } catch (error) {
      return reportError(error, write);
    }
  }
  return commanderMain(argv);
}

/** Every other command line, parsed by commander (which also words the usage errors and the help). */
async function commanderMain(argv: string[]): Promise<number> {
  const [{ Command, CommanderError }, { defineCommands }] = await Promise.all([
    import("commander"),
    import("./commands.ts"),
  ]);
  let exitCode: number = ExitCode.verified;
  dropOutputWhenPipeCloses(process.stdout);
  dropOutputWhenPipeCloses(process.stderr);
  const program = new Command("loopwright")
    .description("Run a coding agent in a loop until a verifiable definition of done holds.")
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) })
    .showHelpAfterError("(run loopwright --help for usage)");
  defineCommands(
    program,
    (code) => {
      exitCode = code;
    },
    argv[0],
  );
  try {
    await program.parseAsync(argv, { from: "user" });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return 0;
      if (error.code === "commander.help") return 0;
      return ExitCode.usage;
    }
    return reportError(error, (text) => process.stderr.write(text));
  }
}

/** The message of a failed command on `write` (stderr), and its exit code. */
function reportError(error: unknown, write: (text: string) => void): number {
  if (error instanceof SpecError) {
    for (const problem of error.problems) write(`${problem}\n`);
    return ExitCode.usage;
  }
  if (error instanceof UsageError) {
    write(`loopwright: ${error.message}\n`);
    return ExitCode.usage;
  }
  const message = error instanceof Error ? error.message : String(error);
  write(`loopwright: internal error: ${message}\n`);
  if (process.env.LOOPWRIGHT_DEBUG && error instanceof Error) write(`${error.stack}\n`);
  else write("(set LOOPWRIGHT_DEBUG=1 for a stack trace)\n");
  return ExitCode.internal;
}
