/**
 * The commands a read-only session may run (pure): an allowlist of executables, subcommands and refused
 * options, checked on the argv split from the model's text without a shell. A command line with shell
 * syntax (pipes, redirections, variables, globs, substitutions) is refused rather than guessed at.
 */

export interface AllowedCommand {
  /** When set, argv[1] must be one of these. */
  subcommands?: readonly string[];
  /**
   * Options that write files or run other programs. For a getopt command (the default) a long option
   * is also refused abbreviated (`--open` for `--open-files-in-pager`) or with `=value`, and a short one
   * anywhere in a cluster (`-nO...` for `-O`), attached value or not; with `exactOptions` (find's
   * `-exec` style) an option is matched as written.
   */
  refused?: readonly string[];
  /** Options are whole words, never abbreviated or clustered (find). */
  exactOptions?: boolean;
}

export const readOnlyCommands: Readonly<Record<string, AllowedCommand>> = {
  git: {
    subcommands: ["status", "diff", "log", "show", "blame", "ls-files", "grep", "rev-parse", "shortlog"],
    refused: ["--output", "-O", "--open-files-in-pager", "--ext-diff", "--textconv", "--exec", "--no-index"],
  },
  ls: {},
  cat: {},
  head: {},
  tail: { refused: ["-f", "-F", "--follow"] },
  wc: {},
  grep: {},
  find: {
    refused: ["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"],
    exactOptions: true,
  },
  diff: {},
  stat: {},
  // `file -C` compiles a magic file and writes `<name>.mgc`.
  file: { refused: ["-C", "--compile"] },
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
    (rule.refused ?? []).some((refused) => matchesOption(argument, refused, rule.exactOptions ?? false)),
  );
  if (option) return `${name} ${option} is not allowed in a read-only session (it writes or runs something)`;
  return undefined;
}

/** True when `argument` is, or (for getopt commands) abbreviates or clusters, the option `refused`. */
function matchesOption(argument: string, refused: string, exact: boolean): boolean {
  if (exact) return argument === refused || argument.startsWith(`${refused}=`);
  if (refused.startsWith("--")) {
    const name = argument.split("=")[0];
    return argument.startsWith("--") && name.length > 2 && refused.startsWith(name);
  }
  // A short option: anywhere in a cluster such as `-nO'sh'` (a letter after a value-taking one may be
  // part of that value, so this can refuse a harmless line, never let a refused option through).
  return /^-[^-]/.test(argument) && argument.includes(refused.slice(1));
}

/**
 * Every argument that could name a path (each word but options, the value of `--option=value`, and every
 * possible attached value of a short-option cluster), to confine: one that names nothing on disk, such as a pattern or a revision, is judged by the folder it
 * would be in, so only what leads outside is refused.
 */
export function pathArguments(argv: readonly string[]): string[] {
  return argv.slice(1).flatMap((argument) => {
    if (argument.startsWith("--")) {
      const value = argument.split("=").slice(1).join("=");
      return value ? [value] : [];
    }
    if (argument.startsWith("-")) {
      // `-f/etc/hostname` or `-rf/etc/hostname`: any suffix of a short-option cluster may be an attached
      // value (or `-name=value` of find); each is judged as a path.
      const suffixes = Array.from({ length: argument.length - 2 }, (_, index) => argument.slice(index + 2));
      const assigned = argument.split("=").slice(1).join("=");
      return [...suffixes, ...(assigned ? [assigned] : [])].filter((value) => value !== "");
    }
    return [argument];
  });
}
