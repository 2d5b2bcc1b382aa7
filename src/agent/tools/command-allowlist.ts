/**
 * The commands a read-only session may run (pure): an allowlist of executables, subcommands and refused
 * options, checked on the argv split from the model's text without a shell. A command line with shell
 * syntax (pipes, redirections, variables, globs, substitutions) is refused rather than guessed at.
 */

export interface AllowedCommand {
  /** When set, argv[1] must be one of these. */
  subcommands?: readonly string[];
  /** Options that write files or run other programs (matched as given, or as `--option=...`). */
  refused?: readonly string[];
}

export const readOnlyCommands: Readonly<Record<string, AllowedCommand>> = {
  git: {
    subcommands: ["status", "diff", "log", "show", "blame", "ls-files", "grep", "rev-parse", "shortlog"],
    refused: ["--output", "-O", "--open-files-in-pager", "--ext-diff", "--exec", "--no-index"],
  },
  ls: {},
  cat: {},
  head: {},
  tail: { refused: ["-f", "-F", "--follow"] },
  wc: {},
  grep: {},
  find: {
    refused: ["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"],
  },
  diff: {},
  stat: {},
  file: {},
  pwd: {},
};

/** One line naming what is allowed, for the tool description. */
export function describeAllowed(
  commands: Readonly<Record<string, AllowedCommand>> = readOnlyCommands,
): string {
  return Object.entries(commands)
    .map(([name, rule]) => (rule.subcommands ? `${name} ${rule.subcommands.join("|")}` : name))
    .join(", ");
}

export type ParsedCommand = { ok: true; argv: string[] } | { ok: false; error: string };

/** Splits a command line into words: spaces separate, '...' is literal, "..." allows \" and \\. */
export function splitCommandLine(line: string): ParsedCommand {
  const argv: string[] = [];
  let word: string | undefined;
  let quote: "'" | '"' | undefined;
  for (let index = 0; index < line.length; index++) {
    const character = line[index];
    if (quote === "'") {
      if (character === "'") quote = undefined;
      else word += character;
    } else if (quote === '"') {
      if (character === '"') quote = undefined;
      else if (character === "\\" && ['"', "\\"].includes(line[index + 1])) word += line[++index];
      else if (character === "$" || character === "`")
        return { ok: false, error: `no variables or substitutions: ${character} inside double quotes` };
      else word += character;
    } else if (/\s/.test(character)) {
      if (word !== undefined) argv.push(word);
      word = undefined;
    } else if (character === "'" || character === '"') {
      quote = character;
      word ??= "";
    } else if (/[|&;<>()$`*?[\]{}~\\\n]/.test(character)) {
      return {
        ok: false,
        error: `no shell syntax (${JSON.stringify(character)}): this runs one command without a shell; quote arguments that contain it`,
      };
    } else word = (word ?? "") + character;
  }
  if (quote) return { ok: false, error: `unclosed ${quote} quote` };
  if (word !== undefined) argv.push(word);
  if (argv.length === 0) return { ok: false, error: "the command is empty" };
  return { ok: true, argv };
}

/** Undefined when `argv` is allowed, else why not. */
export function refusal(
  argv: readonly string[],
  commands: Readonly<Record<string, AllowedCommand>> = readOnlyCommands,
): string | undefined {
  const [name, ...rest] = argv;
  const rule = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!rule) return `${name} is not an allowed command; allowed: ${describeAllowed(commands)}`;
  if (rule.subcommands && !rule.subcommands.includes(rest[0] ?? ""))
    return `${name} ${rest[0] ?? ""} is not allowed; allowed: ${name} ${rule.subcommands.join("|")}`.replace(
      "  ",
      " ",
    );
  const option = rest.find((argument) =>
    (rule.refused ?? []).some((refused) => argument === refused || argument.startsWith(`${refused}=`)),
  );
  if (option) return `${name} ${option} is not allowed in a read-only session (it writes or runs something)`;
  return undefined;
}

/**
 * Every argument that could name a path (each word but options, and the value of `--option=value`), to
 * confine: one that names nothing on disk, such as a pattern or a revision, is judged by the folder it
 * would be in, so only what leads outside is refused.
 */
export function pathArguments(argv: readonly string[]): string[] {
  return argv.slice(1).flatMap((argument) => {
    const value = argument.startsWith("-") ? argument.split("=").slice(1).join("=") : argument;
    return value ? [value] : [];
  });
}
