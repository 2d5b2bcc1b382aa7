/**
 * The recheck of a red test gate reruns only its failing tests where the runner can be told which: a
 * flake is then classified quickly, and a real failure confirmed, before an iteration is spent. Works
 * on one plain runner invocation, optionally after `cd <dir> &&`: `node --test` (name patterns), jest
 * and vitest (`-t`), pytest (node ids), go test (`-run` on the top-level tests), cargo test (exact
 * names after `--`), mix test (`--failed`, from mix's own manifest). Anything else (npm scripts,
 * pipelines, several commands) is rerun whole. A gate's `rerunFailed` overrides this. Pure.
 */

/** Most failing tests a narrowed recheck names; more than this and the whole gate is rerun. */
const namesNarrowed = 50;

/**
 * The command that reruns only `failures` of the gate `command`, or `undefined` to rerun it whole.
 * `files`, the test files the failures point at, also narrow a plain `node --test` (options only, no
 * file arguments) to those files: every other test file would otherwise still start a process.
 */
export function recheckCommand(
  command: string,
  failures: readonly string[],
  files: readonly string[] = [],
): string | undefined {
  if (failures.length === 0 || failures.length > namesNarrowed) return undefined;
  const match = /^(cd [\w./-]+ && )?([^;&|<>`$()\n\\]+)$/.exec(command.trim());
  if (!match) return undefined;
  const invocation = match[2].trimEnd();
  const leaves = failures.map(leafOf);
  if (/^node\b.*(?:^|\s)--test(?:\s|$)/.test(invocation)) {
    // Node reads options only before the file arguments: the patterns go right after `--test`.
    const patterns = leaves.map((leaf) => `--test-name-pattern=${quote(`^${escapeRegex(leaf)}$`)}`);
    const narrowed = invocation.replace(/(^|\s)--test(?=\s|$)/, (flag) => `${flag} ${patterns.join(" ")}`);
    const optionsOnly = invocation
      .split(/\s+/)
      .slice(1)
      .every((word) => word.startsWith("-"));
    const named = optionsOnly && !match[1] && files.length > 0 ? ` ${files.map(quote).join(" ")}` : "";
    return `${match[1] ?? ""}${narrowed}${named}`;
  }
  if (/^(?:npx )?(?:jest|vitest)\b/.test(invocation)) {
    return `${command.trim()} -t ${quote(`(?:${leaves.map(escapeRegex).join("|")})$`)}`;
  }
  if (/^go test\b/.test(invocation)) {
    const tests = [...new Set(failures.map((name) => name.split("/")[0]))];
    if (!tests.every((name) => /^\w+$/.test(name))) return undefined;
    return `${command.trim()} -run ${quote(`^(${tests.join("|")})$`)}`;
  }
  if (/^cargo test\b/.test(invocation)) {
    if (!failures.every((name) => /^[\w:]+$/.test(name))) return undefined;
    const separator = /(^|\s)--(\s|$)/.test(invocation) ? "" : " --";
    return `${command.trim()}${separator} --exact ${failures.join(" ")}`;
  }
  if (/^mix test\b/.test(invocation)) return `${command.trim()} --failed`;
  if (/^(?:python3? -m )?pytest\b/.test(invocation)) {
    if (!failures.every((name) => /^[\w./-]+\.py::/.test(name))) return undefined;
    return `${command.trim()} ${failures.map(quote).join(" ")}`;
  }
  return undefined;
}

/** The test's own name: the last segment of a nested name (`suite > test`). */
function leafOf(name: string): string {
  return name.split(" > ").at(-1) ?? name;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/** One shell word, single-quoted. */
function quote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}
