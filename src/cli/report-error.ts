/**
 * The one place a failed command's error becomes what the user reads and the exit code: a user's
 * mistake (`UsageError`, `SpecError`) one line each and exit 2; anything else a bug, exit 1, with a
 * stack trace only under LOOPWRIGHT_DEBUG.
 */
import { ExitCode, SpecError, UsageError } from "../errors.ts";

/** The message of a failed command on `write` (stderr), and its exit code. */
export function reportError(error: unknown, write: (text: string) => void): number {
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
