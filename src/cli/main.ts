/**
 * The CLI: parses arguments with commander and calls the layer below. Command modules load lazily so
 * quick commands start fast; the read-only commands and `run` in their plain forms skip commander (the
 * read-only ones the output streams too: read-commands.ts, output.ts; from dist/ bin/loopwright.js runs
 * the read-only ones from their bundle, read-only-main.ts, the same way). Every user mistake becomes one
 * line on stderr and exit 2; a bug exits 1 (report-error.ts).
 */
import { ExitCode } from "../errors.ts";
import { dropOutputWhenPipeCloses, writeErr } from "./output.ts";
import { parseCommandForm, type ReadCommandForm, readCommandForms } from "./read-commands.ts";
import { reportError } from "./report-error.ts";

export { whenRunUnderWay } from "./run-under-way.ts";

/**
 * `run [spec]` in its plain form, taken without commander as the read-only commands are. It writes
 * through process.stdout and process.stderr (a run's live progress), not the direct writer: they are set
 * to drop output once the reader is gone (as commander's path sets them), and an error is said on
 * process.stderr, in order with what the command wrote there.
 */
export const runCommandForm: ReadCommandForm = {
  arguments: [{ required: false, defaultValue: "loop.yaml" }],
  options: ["--json", "--detach"],
  load: async () => (await import("./commands/run-loop-command.ts")).runLoopCommand,
};

/** Every form main takes without commander: the read-only commands' and `run`'s. */
export const plainCommandForms: Record<string, ReadCommandForm> = {
  ...readCommandForms,
  run: runCommandForm,
};

export async function main(argv: string[]): Promise<number> {
  const read = parseCommandForm(argv, plainCommandForms);
  if (read) {
    const streams = read.form === runCommandForm;
    const write = streams ? (text: string) => process.stderr.write(text) : writeErr;
    if (streams) {
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
