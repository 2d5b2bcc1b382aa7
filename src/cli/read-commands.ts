/**
 * The read-only commands `ls`, `show <loop>` and `validate [spec]` (and, through main.ts, `run [spec]`),
 * taken without commander when their words have exactly a form the command table (commands.ts) defines:
 * only the options named below, as they are spelled there, and the right number of arguments, none of
 * which starts with `-`. Anything else (help, `--`, an unknown option, a missing or extra argument) is
 * commander's to parse and to word. Loading commander costs about a third of a bare `node -e 0` (its
 * node:child_process import included: 127 ms of CPU for `node -e 'require("commander")'` against 96 ms,
 * perf stat -r 30 on a loaded 2-core machine), on commands that take at most two words; `run` needs
 * node:child_process anyway, and commander alone was still ~15 ms of CPU a start on the way to the
 * maker's first command. test/cli-read-commands.test.ts holds these tables to commander's: the same
 * options and arguments, and the same values for the action.
 *
 * `run`'s form is main.ts's: this table is what the read-only commands' bundle (read-only-main.ts,
 * scripts/bundle-read-commands.ts) holds, and `run`'s modules stay out of it.
 */

type Action = (...args: never[]) => Promise<number | undefined>;

export interface ReadCommandForm {
  /** The positional arguments in order: required ones, then optional ones with their default. */
  arguments: { required: boolean; defaultValue?: string }[];
  /** The boolean options, as `--name`; each sets `name` to true in the options object. */
  options: string[];
  load: () => Promise<Action>;
}

export const readCommandForms: Record<string, ReadCommandForm> = {
  ls: {
    arguments: [],
    options: ["--all", "--json"],
    load: async () => (await import("./commands/list-command.ts")).listCommand,
  },
  show: {
    arguments: [{ required: true }],
    options: ["--json"],
    load: async () => (await import("./commands/show-command.ts")).showCommand,
  },
  validate: {
    arguments: [{ required: false, defaultValue: "loop.yaml" }],
    options: [],
    load: async () => (await import("./commands/validate-command.ts")).validateCommand,
  },
};

/** A command's action and the values commander would pass it (the arguments, then the options). */
export interface ReadCommand {
  form: ReadCommandForm;
  values: unknown[];
}

/** The read-only command `argv` names, when its words have exactly one of the forms above; else undefined. */
export function parseReadCommand(argv: readonly string[]): ReadCommand | undefined {
  return parseCommandForm(argv, readCommandForms);
}

/** The command `argv` names, when its words have exactly one of `forms`; else undefined. */
export function parseCommandForm(
  argv: readonly string[],
  forms: Record<string, ReadCommandForm>,
): ReadCommand | undefined {
  const [name, ...words] = argv;
  if (name === undefined || !Object.hasOwn(forms, name)) return undefined;
  const form = forms[name];
  const options: Record<string, true> = {};
  const positionals: string[] = [];
  for (const word of words) {
    if (!word.startsWith("-")) positionals.push(word);
    else if (form.options.includes(word)) options[word.slice(2)] = true;
    else return undefined;
  }
  const required = form.arguments.filter((argument) => argument.required).length;
  if (positionals.length < required || positionals.length > form.arguments.length) return undefined;
  const values = form.arguments.map((argument, index) => positionals[index] ?? argument.defaultValue);
  return { form, values: [...values, options] };
}
