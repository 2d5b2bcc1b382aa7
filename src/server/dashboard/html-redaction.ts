/**
 * The last line of defence for secrets: every page and fragment the dashboard renders passes through
 * this before it leaves, so that no secret value from the environment appears in it, whether raw or
 * HTML-escaped (`a&b` is sent as `a&amp;b`). The loop redacts what it records; this catches the rest
 * (a file read at a commit, a log written before a variable was set).
 */
import { createRedactor } from "../../core/redact.ts";

/** Returns a function that replaces every secret value of `env` (and its escaped form) by `[redacted:NAME]`. */
export function createHtmlRedactor(env: NodeJS.ProcessEnv = process.env): (text: string) => string {
  const secrets = createRedactor(env).secrets ?? [];
  const forms = new Map<string, string>();
  for (const { name, value } of secrets) {
    forms.set(value, name);
    forms.set(escapeHtml(value), name);
  }
  if (forms.size === 0) return (text) => text;
  const values = [...forms.keys()].sort((left, right) => right.length - left.length);
  const pattern = new RegExp(
    values.map((value) => value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"),
    "g",
  );
  return (text) => text.replace(pattern, (found) => `[redacted:${forms.get(found)}]`);
}

function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}
