/**
 * The `codex exec` command line for each role, and the model a turn will run on. Pure.
 *
 * - Every role: `--json` (JSONL events on stdout), `--skip-git-repo-check` (worktrees of any repository),
 *   `--ephemeral` (no session files in the user's CODEX_HOME), and `-` last: the prompt comes on stdin,
 *   so a long brief never meets the argument length limit or shows in `ps`.
 * - Maker: `-s workspace-write`, codex's own sandbox: it edits the worktree and runs commands without a
 *   prompt (exec never asks for approval), as root or not, and cannot write outside the worktree and the
 *   temp folders. A sandbox flag among the spec's `args` (e.g. `-s danger-full-access` on a machine where
 *   codex's sandbox cannot start) replaces ours: codex refuses the flag twice.
 * - Verifier and replanner: `-s read-only`, always (sandbox flags of the spec's `args` are dropped), and
 *   `--output-schema FILE` when the loop asks for a structured answer.
 */
import type { Role } from "../../core/engine.ts";

export interface CodexArgumentsInput {
  role: Role;
  readOnly: boolean;
  /** The spec's `model`. */
  model?: string;
  /** The spec's `args`, passed after ours. */
  args?: string[];
  /** The JSON Schema file of the answer, for roles that must answer in JSON. */
  schemaPath?: string;
}

/** argv for one turn, starting with the executable. */
export function codexArguments(input: CodexArgumentsInput): string[] {
  const userArgs = input.args ?? [];
  const userSandbox = hasSandboxFlag(userArgs);
  const sandbox = input.readOnly ? ["-s", "read-only"] : userSandbox ? [] : ["-s", "workspace-write"];
  return [
    "codex",
    "exec",
    "--json",
    "--skip-git-repo-check",
    "--ephemeral",
    ...sandbox,
    ...(input.model ? ["-m", input.model] : []),
    ...(input.schemaPath ? ["--output-schema", input.schemaPath] : []),
    ...(input.readOnly ? withoutSandboxFlags(userArgs) : userArgs),
    "-",
  ];
}

/** The model named by the spec (`model`, or `-m`/`--model`/`-c model=` in `args`); undefined if none. */
export function modelOfSpec(model: string | undefined, args: string[] = []): string | undefined {
  if (model) return model;
  for (const [index, word] of args.entries()) {
    if ((word === "-m" || word === "--model") && args[index + 1]) return args[index + 1];
    if (word.startsWith("--model=")) return word.slice("--model=".length);
    if ((word === "-c" || word === "--config") && args[index + 1]) {
      const match = /^model\s*=\s*"?([^"]+)"?$/.exec(args[index + 1]);
      if (match) return match[1].trim();
    }
  }
  return undefined;
}

/**
 * The model a codex config.toml selects: the `model` of the profile in force (`profile` given, else the
 * config's top-level `profile = "..."`), else its top-level `model`; undefined if none.
 */
export function modelOfConfig(toml: string, profile?: string): string | undefined {
  const tables = tomlStrings(toml);
  const top = tables.get("") ?? new Map<string, string>();
  const chosen = profile ?? top.get("profile");
  const profileModel = chosen ? tables.get(`profiles.${chosen}`)?.get("model") : undefined;
  return profileModel ?? top.get("model");
}

/** The profile named in the spec's args (`-p NAME`, `--profile NAME`, `--profile=NAME`). */
export function profileOfArgs(args: string[] = []): string | undefined {
  for (const [index, word] of args.entries()) {
    if ((word === "-p" || word === "--profile") && args[index + 1]) return args[index + 1];
    if (word.startsWith("--profile=")) return word.slice("--profile=".length);
  }
  return undefined;
}

/** The quoted string values of a TOML file by table (`""` for the top level); enough for model names. */
function tomlStrings(toml: string): Map<string, Map<string, string>> {
  const tables = new Map<string, Map<string, string>>([["", new Map()]]);
  let current = tables.get("") as Map<string, string>;
  for (const line of toml.split("\n")) {
    const header = /^\s*\[\s*([^\]]+?)\s*\]/.exec(line);
    if (header) {
      const name = header[1].replace(/"/g, "");
      current = tables.get(name) ?? new Map();
      tables.set(name, current);
      continue;
    }
    const entry = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*["']([^"']*)["']/.exec(line);
    if (entry && !current.has(entry[1])) current.set(entry[1], entry[2]);
  }
  return tables;
}

const sandboxFlag = /^(-s|--sandbox)$/;
const sandboxSwitches = new Set(["--dangerously-bypass-approvals-and-sandbox", "--yolo"]);

function hasSandboxFlag(args: string[]): boolean {
  return args.some(
    (word) => sandboxFlag.test(word) || word.startsWith("--sandbox=") || sandboxSwitches.has(word),
  );
}

function withoutSandboxFlags(args: string[]): string[] {
  const kept: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const word = args[index];
    if (sandboxFlag.test(word)) index++;
    else if (!word.startsWith("--sandbox=") && !sandboxSwitches.has(word)) kept.push(word);
  }
  return kept;
}

/**
 * The `env_key` of the model provider a codex config.toml selects (`model_provider = "x"` and its
 * `[model_providers.x]` table); undefined for the built-in OpenAI provider or a provider without one.
 */
export function providerKeyVariable(toml: string): string | undefined {
  const tables = tomlStrings(toml);
  const provider = tables.get("")?.get("model_provider");
  return provider ? tables.get(`model_providers.${provider}`)?.get("env_key") : undefined;
}
