/**
 * Just enough TOML reading for detection: finding tables by header and keys within them. Not a
 * parser: it reads line by line and ignores inline tables and multi-line strings, which is enough to
 * tell whether a tool is configured.
 */

const headerPattern = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$/;

/** The body of table `[name]` (up to the next header), or undefined when the table is absent. */
export function tomlTable(text: string, name: string): string | undefined {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((line) => headerPattern.exec(line)?.[1] === name);
  if (start === -1) return undefined;
  const body: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (headerPattern.test(line)) break;
    body.push(line);
  }
  return body.join("\n");
}

/** True when a table header is `name` or starts with `name.` (`[tool.ruff.lint]` counts for `tool.ruff`). */
export function hasTomlTable(text: string, name: string): boolean {
  return text.split(/\r?\n/).some((line) => {
    const header = headerPattern.exec(line)?.[1];
    return header === name || header?.startsWith(`${name}.`) === true;
  });
}

/** True when a table body sets `key` (as `key = ...`). */
export function tomlTableSetsKey(body: string, key: string): boolean {
  return new RegExp(`^\\s*${key}\\s*=`, "m").test(body);
}

/**
 * True when the text names `package` as a dependency: a quoted requirement ("pytest>=8") or a
 * `package = ...` key (Poetry). Tolerant by design; a false positive only proposes a gate.
 */
export function mentionsDependency(text: string, packageName: string): boolean {
  const quoted = new RegExp(`["']${packageName}(?![\\w-])`);
  const keyed = new RegExp(`^\\s*${packageName}\\s*=`, "m");
  return quoted.test(text) || keyed.test(text);
}
