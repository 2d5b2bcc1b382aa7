/**
 * Finds the client's working directory in a model request, for `{{cwd}}` in script turns. Each agent
 * CLI states it in its prompt in its own words; the first match over the texts wins.
 */
const patterns = [
  // Claude Code, in the system prompt: " - Primary working directory: /abs/path"
  /Primary working directory: *(\/[^\n]*)/,
  // Codex, in the environment_context user message: "<cwd>/abs/path</cwd>"
  /<cwd>\s*(\/[^<\n]*?)\s*<\/cwd>/,
  // Copilot, in its instructions: "* Current working directory: /abs/path"; generic wording otherwise.
  /Current working directory: *(\/[^\n]*)/i,
  /[Ww]orking directory: *(\/[^\n]*)/,
];

/** The absolute working directory named in `texts` (trailing spaces trimmed), or undefined. */
export function findWorkingDirectory(texts: readonly string[]): string | undefined {
  for (const pattern of patterns) {
    for (const text of texts) {
      const match = pattern.exec(text);
      if (match) return match[1].trim();
    }
  }
  return undefined;
}
