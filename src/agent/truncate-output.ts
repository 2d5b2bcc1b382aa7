/**
 * The one place where text the model would read is cut: tool outputs as they are returned, and old tool
 * outputs when the context is compacted. Whole lines are kept from the head or the tail; a single line
 * longer than the limit is cut inside. The note says what was cut and how to read the rest.
 */

export interface TruncationLimits {
  maxChars: number;
  maxLines: number;
}

/** Which lines were kept, 1-based and inclusive, out of how many. */
export interface ShownLines {
  first: number;
  last: number;
  total: number;
}

/**
 * `text` within `limits`, unchanged when it fits. Otherwise the kept lines followed (head) or preceded
 * (tail) by `[... cut ...]` naming the lines shown, the characters cut, and `readMore(shown)`.
 */
export function truncateOutput(
  text: string,
  limits: TruncationLimits,
  keep: "head" | "tail",
  readMore: (shown: ShownLines) => string,
): string {
  if (text.length <= limits.maxChars && countLines(text) <= limits.maxLines) return text;
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const total = lines.length;
  const ordered = keep === "head" ? lines : [...lines].reverse();
  const kept: string[] = [];
  let size = 0;
  for (const line of ordered) {
    if (kept.length >= limits.maxLines) break;
    if (size + line.length + 1 > limits.maxChars) {
      // A first line alone over the limit is cut inside, so the model sees something.
      if (kept.length === 0) kept.push(cutLine(line, limits.maxChars, keep));
      break;
    }
    kept.push(line);
    size += line.length + 1;
  }
  if (keep === "tail") kept.reverse();
  const shown =
    keep === "head"
      ? { first: 1, last: kept.length, total }
      : { first: total - kept.length + 1, last: total, total };
  const body = kept.join("\n");
  const cutChars = Math.max(0, text.length - body.length);
  const note = `[output truncated: showing lines ${shown.first}-${shown.last} of ${total}, ${cutChars} characters cut. ${readMore(shown)}]`;
  return keep === "head" ? `${body}\n${note}` : `${note}\n${body}`;
}

function cutLine(line: string, maxChars: number, keep: "head" | "tail"): string {
  const room = Math.max(0, maxChars - 20);
  return keep === "head" ? `${line.slice(0, room)} [line cut]` : `[line cut] ${line.slice(-room)}`;
}

function countLines(text: string): number {
  let count = 1;
  for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) count++;
  return count;
}
