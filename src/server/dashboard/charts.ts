/**
 * The glass box's charts, drawn on the server as SVG (visible without JavaScript, nothing to install):
 * cost per iteration, time per phase (maker, gates, verifier, stacked), failing tests per iteration.
 * Each chart carries its numbers as a table too.
 */
import { html, raw } from "hono/html";
import type { LoopState } from "../../loop/state.ts";
import { phaseResults } from "../../loop/state.ts";
import { dollars, duration } from "./format.ts";
import { factsOf } from "./iteration-facts.ts";
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
  const facts = numbers.map((number) => factsOf(view.events, number));
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

/**
 * A stacked bar chart (one bar per iteration) with its numbers as a table below. Built as one string:
 * a chart has a few hundred elements, and everything in it is a number, a formatted number or one of
 * this file's own titles and class names, escaped here once (`escapeText`), not element by element.
 */
function chart(title: string, labels: number[], series: Series[], format: (value: number) => string): Markup {
  const totals = labels.map((_, index) => series.reduce((sum, entry) => sum + entry.values[index], 0));
  const top = Math.max(...totals, 0);
  const slot = (width - axis) / Math.max(labels.length, 1);
  const barWidth = Math.max(2, Math.min(40, slot * 0.7));
  const barWidthText = barWidth.toFixed(1);
  const scale = top > 0 ? (height - 16) / top : 0;
  const names = series.map((entry) => ({
    className: escapeText(entry.className),
    name: escapeText(entry.name),
  }));
  const formatted = series.map((entry) => entry.values.map((value) => escapeText(format(value))));
  let bars = "";
  let rows = "";
  for (let index = 0; index < labels.length; index++) {
    const label = labels[index];
    let y = height;
    const x = axis + index * slot + (slot - barWidth) / 2;
    const xText = x.toFixed(1);
    rows += `<tr><td>${label}</td>`;
    for (let at = 0; at < series.length; at++) {
      const barHeight = series[at].values[index] * scale;
      y -= barHeight;
      bars += `<rect class="bar ${names[at].className}" x="${xText}" y="${y.toFixed(1)}" width="${barWidthText}" height="${barHeight.toFixed(1)}"><title>iteration ${label} ${names[at].name}: ${formatted[at][index]}</title></rect>`;
      rows += `<td class="number">${formatted[at][index]}</td>`;
    }
    rows += "</tr>";
    bars += `<text class="label" x="${(x + barWidth / 2).toFixed(1)}" y="${height + 12}" text-anchor="middle">${label}</text>`;
  }
  const legend =
    series.length > 1
      ? `<p class="legend">${names.map((entry) => `<span class="swatch ${entry.className}"></span>${entry.name} `).join("")}</p>`
      : "";
  const heads = names.map((entry) => `<th>${entry.name}</th>`).join("");
  const caption = escapeText(title);
  return raw(`<figure class="chart"><figcaption>${caption} <span class="muted">(max ${escapeText(format(top))})</span></figcaption>
<svg viewBox="0 0 ${width} ${height + 16}" role="img" aria-label="${caption}"><line class="axis" x1="${axis}" y1="${height}" x2="${width}" y2="${height}"/>${bars}</svg>
${legend}
<details><summary>numbers</summary><table class="chart-numbers"><thead><tr><th>Iteration</th>${heads}</tr></thead>
<tbody>${rows}</tbody></table></details>
</figure>`);
}

/** Text for HTML content or a quoted attribute. */
function escapeText(text: string): string {
  return /[&<>"']/.test(text)
    ? text
        .replaceAll("&", "&amp;")
        .replaceAll("<", "&lt;")
        .replaceAll(">", "&gt;")
        .replaceAll('"', "&quot;")
        .replaceAll("'", "&#39;")
    : text;
}
