/**
 * The words of a shell command line from the program it runs on: leading `VAR=value` assignments are
 * what the shell applies to the program's environment, not the program, so they are skipped (and so
 * are `env` and its own assignments). `validate` checks the program these words name, which is the one
 * the shell runs at `run`. Pure.
 */

const assignment = /^[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"(?:[^"\\]|\\.)*"|[^\s'"\\;&|<>()`]+)*(?=\s|$)/;

/** The program and its arguments, split on whitespace, after leading assignments and `env`. */
export function commandWords(command: string): string[] {
  let rest = command.trim();
  let sawEnv = false;
  for (;;) {
    const match = assignment.exec(rest);
    if (match) {
      rest = rest.slice(match[0].length).trimStart();
      continue;
    }
    if (!sawEnv && /^env(?=\s)/.test(rest)) {
      sawEnv = true;
      rest = rest.slice(3).trimStart();
      continue;
    }
    break;
  }
  const words = rest.split(/\s+/).filter(Boolean);
  // `env -i ...`, `env -u NAME ...`: options whose arguments cannot be told apart from the program.
  return sawEnv && words[0]?.startsWith("-") ? [] : words;
}
