/**
 * The CLI: parses arguments with commander and calls the layer below. Command modules load lazily so
 * quick commands start fast. Every user mistake becomes one line on stderr and exit 2; a bug exits 1.
 */
import { Command, CommanderError } from "commander";
import { ExitCode, SpecError, UsageError } from "../errors.ts";
import { dropOutputWhenPipeCloses } from "./closed-pipe.ts";
import { defineCommands } from "./commands.ts";

export async function main(argv: string[]): Promise<number> {
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
    return reportError(error);
  }
}

function reportError(error: unknown): number {
  if (error instanceof CommanderError) {
    if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return 0;
    if (error.code === "commander.help") return 0;
    return ExitCode.usage;
  }
  if (error instanceof SpecError) {
    for (const problem of error.problems) process.stderr.write(`${problem}\n`);
    return ExitCode.usage;
  }
  if (error instanceof UsageError) {
    process.stderr.write(`loopwright: ${error.message}\n`);
    return ExitCode.usage;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`loopwright: internal error: ${message}\n`);
  if (process.env.LOOPWRIGHT_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  else process.stderr.write("(set LOOPWRIGHT_DEBUG=1 for a stack trace)\n");
  return ExitCode.internal;
}
