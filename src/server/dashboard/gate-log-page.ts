/**
 * A gate run's full log, a page of lines at a time, each line with an anchor (`#L120`) that the digest
 * links to. The run is named by iteration, gate and phase; its path comes from the timeline, never from
 * the request (see `readLogLines`).
 */
import { html } from "hono/html";
import { digestView } from "./digest-view.ts";
import { duration, shortSha } from "./format.ts";
import { links, logPageLines } from "./links.ts";
import type { LogLines } from "./log-page-lines.ts";
import type { LoopView } from "./loop-view.ts";
import { badge, type Markup, page } from "./page-layout.ts";

/** The page of a gate run's log that `read` holds (`readLogLines`), from line `from`. */
export function gateLogPage(view: LoopView, read: LogLines, from: number): Markup {
  const loopId = view.loop.id;
  const { iteration, result } = read.run;
  const title = `${result.id} (${result.phase}), ${iteration === 0 ? "base commit" : `iteration ${iteration}`}`;
  const pager = (total: number) => {
    const previous =
      from > 1
        ? html`<a href="${links.gateLog(loopId, iteration, result.id, result.phase, Math.max(1, from - logPageLines))}">← lines ${Math.max(1, from - logPageLines)}–${from - 1}</a>`
        : "";
    const nextStart = from + logPageLines;
    const next =
      nextStart <= total
        ? html`<a href="${links.gateLog(loopId, iteration, result.id, result.phase, nextStart)}">lines ${nextStart}–${Math.min(total, nextStart + logPageLines - 1)} →</a>`
        : "";
    return html`<p class="pager">${previous} ${next}</p>`;
  };
  const body = read.ok
    ? html`<p>Lines ${Math.min(from, read.totalLines)}–${Math.min(read.totalLines, from + read.lines.length - 1)} of ${read.totalLines} (${read.bytes} bytes)</p>
${pager(read.totalLines)}
<pre class="log">${read.lines.map((line, index) => {
        const number = from + index;
        return html`<span class="line" id="L${number}"><a class="number" href="#L${number}">${number}</a>${line}
</span>`;
      })}</pre>
${pager(read.totalLines)}`
    : html`<p class="warning">${read.problem}</p>`;
  return page(
    { title: `${view.loop.name}: ${title}` },
    html`<p><a href="${links.iteration(loopId, iteration)}">← ${view.loop.name}, ${iteration === 0 ? "baseline" : `iteration ${iteration}`}</a></p>
<h1>Log of gate ${result.id} <small>${result.phase}</small> ${badge(result.passed ? "pass" : "fail")}</h1>
<p><code>${result.command}</code> on <code>${shortSha(result.sha)}</code>: exit ${result.exitCode ?? "–"}${result.timedOut ? " (timed out)" : ""} in ${duration(result.durationMs)}</p>
${result.digestPath ? html`<section id="digest"><h2>Failure digest</h2>${digestView({ loopId, iteration, sha: result.sha, shownFrom: from, shownLines: logPageLines }, result)}</section>` : ""}
<h2>Log</h2>
${body}`,
  );
}
