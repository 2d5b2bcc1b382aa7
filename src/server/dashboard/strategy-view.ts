/**
 * The strategy's section of one loop's page, drawn from the report's own data (`report --json`'s
 * `strategy`, read through the app layer), never recomputed here: a streak's runs, clean streak and
 * per-test failure rates with what the streak proves; a task list's standing with the current task's
 * acceptance criteria; a metric's results table with a chart of medians per attempt and the best kept.
 */
import { html } from "hono/html";
import { formatMetric } from "../../loop/strategies/metric-state.ts";
import type { MetricAttempt, MetricSummary, StrategyData } from "../../loop/strategies/strategy-data.ts";
import { shortSha } from "./format.ts";
import { links } from "./links.ts";
import { badge, type Markup } from "./page-layout.ts";

export function strategyView(loopId: string, data: StrategyData | undefined): Markup {
  if (data?.streak) return streakView(data.streak);
  if (data?.tasks) return tasksView(loopId, data);
  if (data?.metric) return metricView(data.metric);
  return html``;
}

function streakView(streak: NonNullable<StrategyData["streak"]>): Markup {
  const percent = (rate: number) => `${(rate * 100).toFixed(0)}%`;
  return html`<section class="strategy strategy-streak" id="strategy">
<h2>Streak</h2>
<p class="streak-standing">Clean streak <strong>${streak.finalStreak} of ${streak.passes}</strong> on <code>${shortSha(streak.finalSha)}</code>; ${streak.fullRuns} of at most ${streak.maxRuns} full runs, ${streak.failedRuns} red.</p>
${streak.proves ? html`<p class="streak-proves">${streak.proves}</p>` : ""}
<ol class="streak-runs">${streak.runs.map(
    (run, index) =>
      html`<li data-passed="${run.passed ? "yes" : "no"}">${badge(run.passed ? "pass" : "fail", run.passed ? "green" : "red")} run ${index + 1}: ${run.iteration === 0 ? "base" : `iteration ${run.iteration}`} ${run.phase}, <code>${shortSha(run.sha)}</code>${run.failing.length > 0 ? html` <span class="muted">failed ${run.failing.join(", ")}</span>` : ""}</li>`,
  )}</ol>
${
  streak.tests.length === 0
    ? html`<p class="muted">No run failed: the suite was stable.</p>`
    : html`<table class="streak-tests"><thead><tr><th>Test</th><th>Failed</th><th>Of runs</th><th>Rate</th><th>Failed in</th><th>Removed by</th></tr></thead>
<tbody>${streak.tests.map(
        (test) =>
          html`<tr><td><code>${test.test}</code></td><td class="number">${test.failures}</td><td class="number">${test.runs}</td><td class="number">${percent(test.rate)}</td><td>${test.failedIn.map((iteration) => (iteration === 0 ? "base" : `#${iteration}`)).join(", ")}</td><td>${test.removedBy === undefined ? "not removed" : `iteration ${test.removedBy}`}</td></tr>`,
      )}</tbody></table>`
}
</section>`;
}

function tasksView(loopId: string, data: StrategyData): Markup {
  const tasks = data.tasks ?? [];
  const current = tasks.find((task) => task.id === data.currentTaskId);
  const done = tasks.filter((task) => task.status === "done").length;
  return html`<section class="strategy strategy-tasks" id="strategy">
<h2>Tasks</h2>
<p>${done} of ${tasks.length} tasks done${data.taskFile ? html` in <code>${data.taskFile}</code>` : ""}.</p>
${
  current
    ? html`<div class="current-task"><h3>Current task: ${current.id} ${current.title}</h3>
${current.criteria.length > 0 ? html`<p>Acceptance criteria:</p><ul class="criteria">${current.criteria.map((criterion) => html`<li>${criterion}</li>`)}</ul>` : html`<p class="muted">No acceptance criteria listed.</p>`}</div>`
    : ""
}
<table class="task-list"><thead><tr><th>Task</th><th>Standing</th></tr></thead>
<tbody>${tasks.map(
    (task) =>
      html`<tr data-task="${task.id}" data-status="${task.status}"><td>${task.id} ${task.title}</td><td>${
        task.status === "done"
          ? task.completed
            ? html`${badge("pass", "done")} by iteration <a href="${links.iteration(loopId, task.completed.iteration)}">${task.completed.iteration}</a>, ticked in <code>${shortSha(task.completed.sha)}</code>`
            : html`${badge("pass", "done")} before the loop`
          : task.status === "blocked"
            ? html`${badge("fail", "blocked")} at iteration ${task.blocked?.iteration ?? "?"} after ${task.blocked?.attempts ?? "?"} attempts: ${task.blocked?.reason ?? ""}`
            : html`${badge("pending", task.id === data.currentTaskId ? "open, current" : "open")}`
      }</td></tr>`,
  )}</tbody></table>
</section>`;
}

function metricView(metric: NonNullable<StrategyData["metric"]>): Markup {
  const summary = metric.summary;
  const base = metric.measurements.find((entry) => entry.phase === "base");
  const f = formatMetric;
  return html`<section class="strategy strategy-metric" id="strategy">
<h2>Metric</h2>
${
  summary
    ? html`<p class="metric-standing">${summary.direction}, median of ${summary.samples}. Base <code>${shortSha(summary.baseSha)}</code>: ${f(summary.baseMedian)}; noise floor <strong>${f(summary.noise)}</strong>; best kept <strong>${f(summary.best)}</strong> at <code>${shortSha(summary.bestSha)}</code>; ${summary.kept} of ${metric.attempts.length} attempts kept${summary.target === undefined ? "" : `; target ${f(summary.target)}`}.</p>`
    : base
      ? html`<p class="warning">The metric command failed on the base commit: ${base.error ?? "no value"}.</p>`
      : html`<p class="muted">The base commit is not measured yet.</p>`
}
${summary && metric.attempts.length > 0 ? metricChart(metric.attempts, summary) : ""}
${
  metric.attempts.length > 0
    ? html`<table class="metric-results"><thead><tr><th>Attempt</th><th>Commit</th><th>Samples</th><th>Median</th><th>Re-measured</th><th>Kept</th><th>Why</th><th>Best after</th></tr></thead>
<tbody>${metric.attempts.map(
        (attempt) =>
          html`<tr data-attempt="${attempt.iteration}" data-kept="${attempt.kept ? "yes" : "no"}"><td class="number">${attempt.iteration}</td><td><code>${shortSha(attempt.sha)}</code></td><td>${attempt.samples.map(f).join(", ") || "–"}</td><td class="number">${attempt.median === undefined ? "–" : f(attempt.median)}</td><td class="number">${attempt.remeasured === undefined ? "–" : f(attempt.remeasured)}</td><td>${attempt.kept ? badge("pass", "kept") : html`${badge("fail", "reset")}${attempt.ref ? html` <code>${attempt.ref}</code>` : ""}`}</td><td>${attempt.reason}</td><td class="number">${f(attempt.bestAfter)}</td></tr>`,
      )}</tbody></table>`
    : ""
}
</section>`;
}

const width = 320;
const height = 120;
const axis = 18;

/** Each attempt's median as a dot (kept or reset), and the best kept median after each attempt as a step line. */
function metricChart(attempts: MetricAttempt[], summary: MetricSummary): Markup {
  const values = [
    summary.baseMedian,
    ...attempts.flatMap((attempt) => (attempt.median === undefined ? [] : [attempt.median])),
    ...attempts.map((attempt) => attempt.bestAfter),
  ];
  const low = Math.min(...values);
  const high = Math.max(...values);
  const span = high - low || Math.abs(high) || 1;
  const y = (value: number) => (height - 8 - ((value - low) / span) * (height - 16)).toFixed(1);
  const slot = (width - axis) / (attempts.length + 1);
  const x = (index: number) => (axis + slot * (index + 0.5)).toFixed(1);
  // The best line starts at the base (slot 0) and steps at every attempt.
  const bests = [summary.baseMedian, ...attempts.map((attempt) => attempt.bestAfter)];
  const points = bests.flatMap((value, index) =>
    index === 0 ? [`${x(0)},${y(value)}`] : [`${x(index)},${y(bests[index - 1])}`, `${x(index)},${y(value)}`],
  );
  return html`<figure class="chart metric-chart"><figcaption>Median per attempt <span class="muted">(line: best kept; noise floor ${formatMetric(summary.noise)})</span></figcaption>
<svg viewBox="0 0 ${width} ${height + 16}" role="img" aria-label="Median per attempt"><line class="axis" x1="${axis}" y1="${height}" x2="${width}" y2="${height}"/>
<polyline class="best-line" fill="none" points="${points.join(" ")}"><title>best kept</title></polyline>
<circle class="point base" cx="${x(0)}" cy="${y(summary.baseMedian)}" r="3"><title>base: ${formatMetric(summary.baseMedian)}</title></circle>
<text class="label" x="${x(0)}" y="${height + 12}" text-anchor="middle">base</text>
${attempts.map(
  (attempt, index) =>
    html`${attempt.median === undefined ? "" : html`<circle class="point ${attempt.kept ? "kept" : "reset"}" cx="${x(index + 1)}" cy="${y(attempt.median)}" r="3"><title>attempt ${attempt.iteration}: ${formatMetric(attempt.median)} ${attempt.kept ? "kept" : "reset"}</title></circle>`}<text class="label" x="${x(index + 1)}" y="${height + 12}" text-anchor="middle">${attempt.iteration}</text>`,
)}</svg>
<p class="legend"><span class="swatch kept"></span>kept <span class="swatch reset"></span>reset <span class="swatch best"></span>best kept</p>
</figure>`;
}
