/**
 * The digest as text for a maker's brief. Pure.
 */
import { basename } from "node:path";
import type { Digest, FailureBlock } from "./digest-types.ts";

/** The default size of a rendered digest: 64 KiB. */
export const defaultDigestBytes = 64 * 1024;

/**
 * At most `limitBytes` bytes of UTF-8 (default 64 KiB) describing what failed: first one line per
 * failure (number, full name, `file:line` anchors, and `log:line` where its report starts in the full
 * log), as many as fit while leaving a quarter of the room (at most 16 KiB) for details; then the
 * details (seed, message, first stack frames) of as many listed failures as fit. It says how many
 * failures and how many details it left out, and names the full log so that the reader can open it.
 */
export function renderDigest(digest: Digest, limitBytes: number = defaultDigestBytes): string {
  const logName = digest.logPath ? basename(digest.logPath) : "log";
  const output = new BoundedText(limitBytes);
  output.add(heading(digest, logName));
  if (digest.totalFailures === 0) return output.text();

  // Room kept for the lines that say what was left out.
  const closingRoom = 200;
  const detailRoom = hasDetails(digest.failures) ? Math.min(16 * 1024, Math.floor(limitBytes / 4)) : 0;
  output.add("\n### Failures\n");
  let listed = 0;
  for (const failure of digest.failures) {
    if (!output.fits(entry(failure, logName), closingRoom + detailRoom)) break;
    output.add(entry(failure, logName));
    listed++;
  }
  const unlisted = digest.totalFailures - listed;
  if (unlisted > 0)
    output.add(
      `(${unlisted} more ${plural(unlisted, "failure")} not listed here: they are in the full log.)\n`,
    );

  let detailed = 0;
  const withDetails = digest.failures
    .slice(0, listed)
    .filter((failure) => failure.message || failure.stack.length);
  if (withDetails.length > 0) output.add("\n### Details\n");
  for (const failure of withDetails) {
    const block = details(failure, logName);
    if (output.fits(block, closingRoom)) {
      output.add(block);
      detailed++;
      continue;
    }
    const room = output.room() - closingRoom;
    if (room > 300) {
      output.add(`${cutToBytes(block, room - 40).trimEnd()}\n    … (cut)\n`);
      detailed++;
    }
    break;
  }
  const undetailed = withDetails.length - detailed;
  if (undetailed > 0)
    output.add(
      `(Details of ${undetailed} listed ${plural(undetailed, "failure")} left out for size: read them at the log lines above.)\n`,
    );
  return output.text();
}

function heading(digest: Digest, logName: string): string {
  const runners = digest.runners.length > 0 ? ` (${digest.runners.join(", ")})` : "";
  const executed = digest.testsExecuted !== undefined ? `; ${digest.testsExecuted} tests executed` : "";
  const where = digest.logPath
    ? `Full log: ${digest.logPath} (${digest.lines} lines); \`${logName}:N\` below is its line N.`
    : `\`${logName}:N\` below is line N of the log (${digest.lines} lines).`;
  if (digest.readError) return `## Failure digest\nThe log could not be read: ${digest.readError}\n`;
  if (digest.totalFailures === 0)
    return `## Failure digest\nNo failure recognized in the log${runners}${executed}. ${where}\n`;
  const count = `${digest.totalFailures} ${plural(digest.totalFailures, "failure")}`;
  return `## Failure digest\n${count}${runners}${executed}. ${where}\n`;
}

function entry(failure: FailureBlock, logName: string): string {
  const anchors = failure.anchors.map((anchor) => `${anchor.file}:${anchor.line}`).join(", ");
  return `${failure.number}. ${oneLine(failure.name)}${anchors ? ` — ${anchors}` : ""} (${logName}:${failure.logLine})\n`;
}

function details(failure: FailureBlock, logName: string): string {
  const lines = [`\n#### ${failure.number}. ${oneLine(failure.name)} (${logName}:${failure.logLine})`];
  if (failure.seed) lines.push(`Seed: ${failure.seed}`);
  if (failure.message) lines.push(...failure.message.split("\n").map((line) => `    ${line}`));
  if (failure.stack.length > 0) lines.push("Stack:", ...failure.stack.map((frame) => `  ${frame}`));
  return `${lines.join("\n")}\n`;
}

function hasDetails(failures: FailureBlock[]): boolean {
  return failures.some((failure) => failure.message || failure.stack.length > 0);
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ");
}

function plural(count: number, word: string): string {
  return count === 1 ? word : `${word}s`;
}

/** The longest start of `text` within `limit` bytes of UTF-8, cut at a line end when one is near. */
function cutToBytes(text: string, limit: number): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= limit) return text;
  let end = limit;
  // Step back over UTF-8 continuation bytes so that no character is split.
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  const cut = bytes.subarray(0, end).toString("utf8");
  const newline = cut.lastIndexOf("\n");
  return newline > cut.length / 2 ? cut.slice(0, newline + 1) : cut;
}

/** Text that never grows past a byte limit. */
class BoundedText {
  private readonly parts: string[] = [];
  private bytes = 0;
  private readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** True when `text` fits with `spare` bytes left over. */
  fits(text: string, spare = 0): boolean {
    return this.bytes + Buffer.byteLength(text) + spare <= this.limit;
  }

  room(): number {
    return this.limit - this.bytes;
  }

  /** Adds `text`, cut to the room left. */
  add(text: string): void {
    const kept = this.fits(text) ? text : cutToBytes(text, this.room());
    this.parts.push(kept);
    this.bytes += Buffer.byteLength(kept);
  }

  text(): string {
    return this.parts.join("");
  }
}
