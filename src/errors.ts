/**
 * The few named errors loopwright throws for a user's mistake or environment. The CLI catches them
 * in one place and maps each to a one-line message and an exit code; anything else is a bug
 * (exit 1, with a stack trace only under LOOPWRIGHT_DEBUG).
 */

/** Process exit codes; a closed set documented in the README. */
export const ExitCode = {
  verified: 0,
  internal: 1,
  usage: 2,
  budget_exhausted: 3,
  no_progress: 4,
  circuit_broken: 5,
  target_reached: 6,
  plateau: 7,
  ci_failed: 8,
  /** `verified`, but `finish: pull-request` could not publish it: the push or the pull request step failed. */
  unpublished: 9,
  paused: 75,
  user_cancelled: 130,
} as const;

/** Bad arguments, a bad spec, or an environment that cannot host the loop (exit 2). */
export class UsageError extends Error {
  override name = "UsageError";
}

/** A spec that failed validation: one problem per line, each `file:line: field: message`. */
export class SpecError extends UsageError {
  override name = "SpecError";
  readonly problems: string[];
  constructor(problems: string[]) {
    super(problems.join("\n"));
    this.problems = problems;
  }
}

/** The loop is already being run by a live controller (exit 2). */
export class LoopBusyError extends UsageError {
  override name = "LoopBusyError";
}

/**
 * The store's database cannot serve: corrupt, not a loopwright database, locked by another process past
 * the bound, or read-only for a write (exit 2). The message starts with the database file's path.
 */
export class StoreError extends UsageError {
  override name = "StoreError";
}

/** A name or id that matches no loop (exit 2). */
export class LoopNotFoundError extends UsageError {
  override name = "LoopNotFoundError";
}

/** A name or id that matches no schedule (exit 2; over HTTP a 404, like a loop that is not there). */
export class ScheduleNotFoundError extends LoopNotFoundError {
  override name = "ScheduleNotFoundError";
}

/**
 * A request field that is wrong (exit 2; the API answers 400 naming `field`). `field` is the path in the
 * request body (`budget.maxIterations`, `addGates.0.run`, `offset`); `problem` says what is wrong without
 * naming the field; `message` is the one line the CLI prints (its wording may name a command-line option).
 */
export class FieldError extends UsageError {
  override name = "FieldError";
  readonly field: string;
  readonly problem: string;
  constructor(field: string, problem: string, message = `${field}: ${problem}`) {
    super(message);
    this.field = field;
    this.problem = problem;
  }
}
