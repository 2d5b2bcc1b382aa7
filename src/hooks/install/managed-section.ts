/**
 * A section loopwright owns inside a user's Markdown file (CLAUDE.md), between a begin and an end
 * marker: added at the end, replaced in place by a re-run, taken out on removal. Pure.
 */
import { sectionBegin, sectionEnd } from "../templates/definition-of-done.ts";

/** `text` (undefined: no file yet) with `section` in it: the old section replaced, else appended after a blank line. */
export function withSection(text: string | undefined, section: string): string {
  const found = locate(text ?? "");
  if (found) return `${text?.slice(0, found.start)}${section}${text?.slice(found.end)}`;
  if (!text) return section;
  // Always one blank line more than the text had, so that removal can take exactly one back.
  const separator = text.endsWith("\n") ? "\n" : "\n\n";
  return `${text}${separator}${section}`;
}

/**
 * `text` without the section and the blank line that was put before it; unchanged when there is none.
 * Exact for a file that ended with a newline; one that did not gets one.
 */
export function withoutSection(text: string): string {
  const found = locate(text);
  if (!found) return text;
  let before = text.slice(0, found.start);
  if (before.endsWith("\n\n")) before = before.slice(0, -1);
  return `${before}${text.slice(found.end)}`;
}

/** Where the section is: from its begin marker to just after its end marker's line. */
function locate(text: string): { start: number; end: number } | undefined {
  const start = text.indexOf(sectionBegin);
  if (start < 0) return undefined;
  const endMarker = text.indexOf(sectionEnd, start);
  if (endMarker < 0) return undefined;
  let end = endMarker + sectionEnd.length;
  if (text[end] === "\n") end++;
  return { start, end };
}
