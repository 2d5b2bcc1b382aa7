/**
 * The glass box's charts, drawn on the server as SVG (visible without JavaScript, nothing to install):
 * cost per iteration, time per phase (maker, gates, verifier, stacked), failing tests per iteration.
 * Each chart carries its numbers as a table too.
 */
import { html } from "hono/html";
import type { LoopState } from "../../loop/state.ts";
import { phaseResults } from "../../loop/state.ts";
import { dollars, duration } from "./format.ts";
import { iterationFacts, iterationFactsByNumber } from "./iteration-facts.ts";
import type { LoopView } from "./loop-view.ts";
import type { Markup } from "./page-layout.ts";

interface Series {
  name: string;
  className: string;
  values: number[];
}

const width = 320;
const height = 120;
const axis = 18;

/** The three charts of a loop, side by side. */
export function chartsView(view: LoopView, state: LoopState): Markup {
  if (state.iterations.length === 0) return html``;
  const numbers = state.iterations.map((iteration) => iteration.number);
  const byNumber = iterationFactsByNumber(view.events);
  const facts = numbers.map((number) => byNumber.get(number) ?? iterationFacts([], number));
  const failing = state.iterations.map((iteration) =>
    Object.values(phaseResults(iteration, "grade")).reduce(
      (total, result) => total + (result.passed ? 0 : Math.max(result.failures?.length ?? 0, 1)),
      0,
    ),
  );
  return html`<section class="charts">
${chart("Cost per iteration", numbers, [{ name: "cost", className: "cost", values: facts.map((fact) => fact.costUsd) }], dollars)}
${chart(
  "Time per phase",
  numbers,
  [
    { name: "maker", className: "maker", values: facts.map((fact) => fact.times.makerMs) },
    { name: "gates", className: "gates", values: facts.map((fact) => fact.times.gatesMs) },
    { name: "verifier", className: "verifier", values: facts.map((fact) => fact.times.verifierMs) },
  ],
  duration,
)}
${chart("Failing tests per iteration", numbers, [{ name: "failing", className: "failing", values: failing }], String)}
</section>`;
}

/** A stacked bar chart (one bar per iteration) with its numbers as a table below. */
function chart(title: string, labels: number[], series: Series[], format: (value: number) => string): Markup {
  const totals = labels.map((_, index) => series.reduce((sum, entry) => sum + entry.values[index], 0));
  const top = Math.max(...totals, 0);
  const slot = (width - axis) / Math.max(labels.length, 1);
  const barWidth = Math.max(2, Math.min(40, slot * 0.7));
  const scale = top > 0 ? (height - 16) / top : 0;
  const bars = labels.map((label, index) => {
    let y = height;
    const x = axis + index * slot + (slot - barWidth) / 2;
    const pieces = series.map((entry) => {
      const barHeight = entry.values[index] * scale;
      y -= barHeight;
      return html`<rect class="bar ${entry.className}" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${barHeight.toFixed(1)}"><title>iteration ${label} ${entry.name}: ${format(entry.values[index])}</title></rect>`;
    });
    return html`${pieces}<text class="label" x="${(x + barWidth / 2).toFixed(1)}" y="${height + 12}" text-anchor="middle">${label}</text>`;
  });
  return html`<figure class="chart"><figcaption>${title} <span class="muted">(max ${format(top)})</span></figcaption>
<svg viewBox="0 0 ${width} ${height + 16}" role="img" aria-label="${title}"><line class="axis" x1="${axis}" y1="${height}" x2="${width}" y2="${height}"/>${bars}</svg>
${series.length > 1 ? html`<p class="legend">${series.map((entry) => html`<span class="swatch ${entry.className}"></span>${entry.name} `)}</p>` : ""}
<details><summary>numbers</summary><table class="chart-numbers"><thead><tr><th>Iteration</th>${series.map((entry) => html`<th>${entry.name}</th>`)}</tr></thead>
<tbody>${labels.map((label, index) => html`<tr><td>${label}</td>${series.map((entry) => html`<td class="number">${format(entry.values[index])}</td>`)}</tr>`)}</tbody></table></details>
</figure>`;
}
