/**
 * A gate run's full log, a page of lines at a time, each line with an anchor (`#L120`) that the digest
 * links to. The run is named by iteration, gate and phase; its path comes from the timeline, never from
 * the request.
 */
import { html } from "hono/html";
import type { GateResult } from "../../core/events.ts";
import { allGateResults, type LoopState } from "../../loop/state.ts";
import { digestView } from "./digest-view.ts";
import { duration, shortSha } from "./format.ts";
import { links, logPageLines } from "./links.ts";
import { readLogLines } from "./log-lines.ts";
import type { LoopView } from "./loop-view.ts";
import { badge, type Markup, page } from "./page-layout.ts";

/** The gate run of `iteration` (0: the baseline), gate and phase; undefined when there is none. */
export function findGateRun(
  state: LoopState,
  iteration: number,
  gateId: string,
  phase: string,
): GateResult | undefined {
  if (iteration === 0) return phase === "baseline" ? state.baseline[gateId] : undefined;
  const found = state.iterations.find((candidate) => candidate.number === iteration);
  return found
    ? allGateResults(found).find((result) => result.id === gateId && result.phase === phase)
    : undefined;
}

export async function gateLogPage(
  view: LoopView,
  iteration: number,
  result: GateResult,
  from: number,
): Promise<Markup> {
  const loopId = view.loop.id;
  const read = await readLogLines(result.logPath, from, logPageLines);
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
