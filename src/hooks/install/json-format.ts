/**
 * JSON written back in the formatting of the file it replaces: the same indentation (spaces or a tab,
 * or none for a one-line file) and the same final newline, so that a user's settings.json does not
 * come back re-indented. Key order is the object's own. Pure.
 */
export function formatJsonLike(previous: string | undefined, value: unknown): string {
  if (previous === undefined || previous.trim() === "") return `${JSON.stringify(value, null, 2)}\n`;
  const indent = /^[{[][ \t]*\r?\n([ \t]+)\S/.exec(previous.trimStart())?.[1];
  const text = indent === undefined ? JSON.stringify(value) : JSON.stringify(value, null, indent);
  return previous.endsWith("\n") ? `${text}\n` : text;
}
