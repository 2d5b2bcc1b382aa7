/**
 * A gate's failure digest with its references made links: `log-name:N` opens the full log at line N (an
 * anchor on the same page when that line is shown there), `file:line` opens the file at the graded
 * commit. The digest is read from its file (bounded).
 */
import { basename } from "node:path";
import { html } from "hono/html";
import type { GateResult } from "../../core/events.ts";
import { readRegularFile } from "../../files/read-regular-file.ts";
import { links } from "./links.ts";
import type { Markup } from "./page-layout.ts";

/** Largest digest shown (a rendered digest is 64 KiB by default). */
const maximumDigestBytes = 256 * 1024;

/** Where a gate run lives, for the links: `iteration` 0 is the baseline; `sha` the commit it graded. */
export interface GateRunPlace {
  loopId: string;
  iteration: number;
  sha?: string;
  /** The log lines shown on the same page (`from`, count): a reference to one of them is an anchor there. */
  shownFrom?: number;
  shownLines?: number;
}

/** The digest of `result` as linked text, or a note saying why there is none. */
export async function digestView(place: GateRunPlace, result: GateResult): Promise<Markup> {
  if (!result.digestPath) return html`<p class="muted">No digest for this run.</p>`;
  const read = await readRegularFile(result.digestPath, { maximumBytes: maximumDigestBytes, noFollow: true });
  if (!read.ok) return html`<p class="muted">Digest not readable: ${read.problem}</p>`;
  return html`<pre class="digest">${linkDigest(read.text, place, result)}</pre>`;
}

const fileLinePattern = /((?:[\w.@~+-]+\/)*[\w.@~+-]*[\w-]\.[A-Za-z]\w{0,5}):(\d+)/g;

/** The digest text split into text and links; every piece of text stays escaped. */
export function linkDigest(text: string, place: GateRunPlace, result: GateResult): Markup[] {
  const logName = basename(result.logPath);
  const pieces: Markup[] = [];
  let last = 0;
  fileLinePattern.lastIndex = 0;
  for (let match = fileLinePattern.exec(text); match; match = fileLinePattern.exec(text)) {
    const [whole, file, lineText] = match;
    const line = Number(lineText);
    let href: string | undefined;
    if (file === logName || file.endsWith(`/${logName}`)) {
      const onThisPage =
        place.shownFrom !== undefined &&
        place.shownLines !== undefined &&
        line >= place.shownFrom &&
        line < place.shownFrom + place.shownLines;
      href = onThisPage
        ? `#L${line}`
        : links.gateLogLine(place.loopId, place.iteration, result.id, result.phase, line);
    } else if (place.sha && !file.startsWith("/") && !file.includes("..")) {
      href = links.fileAt(place.loopId, place.sha, file, line);
    }
    if (!href) continue;
    pieces.push(html`${text.slice(last, match.index)}`, html`<a href="${href}">${whole}</a>`);
    last = match.index + whole.length;
  }
  pieces.push(html`${text.slice(last)}`);
  return pieces;
}
