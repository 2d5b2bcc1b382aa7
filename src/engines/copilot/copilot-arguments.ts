/**
 * The `copilot` command line and environment for one turn (pure). Facts behind each choice were checked
 * with the real CLI (@github/copilot 1.0.102) as root and as an unprivileged user:
 * - Headless: the prompt on stdin (a piped prompt runs one non-interactive turn like `-p`, and a brief
 *   can outgrow one argv string), `--output-format json` (JSONL events, then a `result` line).
 * - `--usage-output-file`: the JSONL stream carries no tokens (the CLI filters its `assistant.usage`
 *   events out of it); this file, written when the session ends, has the turn's tokens per model.
 * - Maker: `--allow-all-tools` (required without a terminal) edits and runs commands without prompts,
 *   as root too.
 * - Verifier and replanner: without `--allow-all-tools`, only auto-approved reads, the allow-listed
 *   read-only commands below and nothing else run: every other request is denied for want of a user.
 *   `--deny-tool write` refuses the file tools outright, and a shell redirection (`echo x > f`) needs
 *   the same write permission, so it is refused too; compound commands are checked part by part.
 *   `--add-dir` opens the gate logs and the diff outside the worktree for reading.
 * - `COPILOT_ALLOW_ALL=false` in every role: a user's `COPILOT_ALLOW_ALL=true` would approve every tool
 *   and also trust the worktree, which runs the repository's hooks (Copilot runs `.github/hooks` and
 *   Claude Code's `.claude/settings.json` hooks of a trusted folder). The flag still wins for the maker.
 * - The spec's `model` and `args` come last, so a user can add any flag.
 */
import type { EngineSpec } from "../../core/spec.ts";

/**
 * Shell commands a read-only turn may run: they read and cannot write (redirections are refused). A
 * pattern approves a command (or git subcommand) with any arguments, so none here may have an option
 * that writes.
 */
export const readOnlyCommands = [
  "cat",
  "head",
  "tail",
  "ls",
  "wc",
  "grep",
  "diff",
  "pwd",
  "git status",
  "git ls-files",
];

/**
 * Commands a read-only turn is refused although Copilot approves them by itself as reads (checked with
 * 1.0.102): each writes any file through `--output=<file>`, abbreviations included. The diff is in the
 * verifier's brief and in a file it may read. A deny rule wins over every approval.
 */
export const deniedCommands = ["git diff", "git log", "git show"];

export interface CopilotTurnShape {
  readOnly: boolean;
  /** Where the CLI writes the turn's usage report. */
  usageFile: string;
  /** Folders outside the worktree a read-only turn may read (gate logs, the diff). */
  readableDirectories?: string[];
}

/** The arguments after `copilot`. */
export function copilotArguments(turn: CopilotTurnShape, spec: Pick<EngineSpec, "model" | "args">): string[] {
  const argv = ["--output-format", "json", `--usage-output-file=${turn.usageFile}`];
  if (turn.readOnly) {
    for (const command of readOnlyCommands) argv.push(`--allow-tool=shell(${command})`);
    for (const command of deniedCommands) argv.push(`--deny-tool=shell(${command})`);
    argv.push("--deny-tool=write");
    for (const directory of turn.readableDirectories ?? []) argv.push(`--add-dir=${directory}`);
  } else {
    argv.push("--allow-all-tools");
  }
  if (spec.model) argv.push("--model", spec.model);
  return [...argv, ...(spec.args ?? [])];
}

/** Environment on top of the user's for every turn (see the header). */
export const copilotEnvironment: Record<string, string> = { COPILOT_ALLOW_ALL: "false" };
