/**
 * The loops page: every loop (the app's loops list) with its status (queued with its position, running
 * with its current phase, stopped with its reason), iterations against the cap, cost today and in total
 * against the daily cap, and a strip of its iterations' outcomes; then the scheduled loops.
 */
import { html } from "hono/html";
import type { LoopListing } from "../../app/schemas/loop-schemas.ts";
import type { ScheduleView } from "../../service/schedules/list-schedules.ts";
import { capText, clock, dollars } from "./format.ts";
import { links } from "./links.ts";
import { statusTone } from "./loop-view.ts";
import { badge, type Markup } from "./page-layout.ts";

/** The live part of the loops page, swapped in place when an event arrives. */
export function loopsFragment(
  rows: LoopListing[],
  schedules: ScheduleView[],
  warnings: string[] = [],
): Markup {
  return html`<section><h1>Loops</h1>
${warnings.map((warning) => html`<p class="warning">${warning}</p>`)}
${rows.length === 0 ? html`<p class="empty">No loops yet. <a href="${links.newLoop()}">Start one</a>.</p>` : loopsTable(rows)}
</section>
<section id="schedules"><h2>Scheduled</h2>
${schedules.length === 0 ? html`<p class="empty">No schedules.</p>` : schedulesTable(schedules)}
</section>`;
}

function loopsTable(rows: LoopListing[]): Markup {
  return html`<table class="loops"><thead><tr>
<th>Loop</th><th>Status</th><th>Iteration</th><th>Cost today</th><th>Cost total</th><th>Outcomes</th><th>Created</th>
</tr></thead><tbody>${rows.map(loopRow)}</tbody></table>`;
}

function loopRow(row: LoopListing): Markup {
  return html`<tr data-loop="${row.id}" data-status="${row.status}">
<td><a href="${links.loop(row.id)}">${row.name}</a><div class="muted">${row.repoRoot}</div></td>
<td>${badge(statusTone(row.status, row.stopReason), row.status)} <span class="phase">${statusDetail(row)}</span></td>
<td class="number">${row.iterations} / ${capText(row.maxIterations)}</td>
<td class="number">${dollars(row.costTodayUsd)} <span class="muted">of ${capText(row.maxCostUsdPerDay, dollars)}/day</span></td>
<td class="number">${dollars(row.costUsd)}</td>
<td>${outcomeStrip(row.id, row.outcomes)}</td>
<td>${clock(row.createdAt)}</td>
</tr>`;
}

function statusDetail(row: LoopListing): string {
  switch (row.status) {
    case "queued":
      return row.queuePosition ? `#${row.queuePosition} in the queue` : "waiting for the service";
    case "running":
      return row.phase ?? "";
    case "parked":
      return "daily cost cap spent; goes on at UTC midnight";
    case "stopped":
      return row.stopDescription ?? "";
    case "interrupted":
      return "its controller is gone; resume continues it";
    default:
      return "";
  }
}

/** How many of a loop's latest iterations the loops page draws; the loop's own page has them all. */
export const stripLength = 20;

/**
 * One square per iteration, coloured by outcome, each linking to its iteration on the loop's page: the
 * latest `stripLength`, after a link naming how many earlier ones the loop's page holds (a page of 100
 * loops with 100 iterations each stays small).
 */
export function outcomeStrip(loopId: string, outcomes: string[]): Markup {
  const hidden = Math.max(0, outcomes.length - stripLength);
  const shown = outcomes.slice(hidden);
  return html`<span class="strip">${hidden > 0 ? html`<a class="earlier" href="${links.loop(loopId)}" title="the loop's page lists every iteration">${hidden} earlier</a> ` : ""}${shown.map(
    (outcome, index) =>
      html`<a class="cell outcome-${outcome}" href="${links.iteration(loopId, hidden + index + 1)}" title="iteration ${hidden + index + 1}: ${outcome}">${hidden + index + 1}</a>`,
  )}</span>`;
}

/** Each schedule: its rule, its next firing (in its zone and in UTC), whether it is overdue, its latest firings. */
function schedulesTable(schedules: ScheduleView[]): Markup {
  return html`<table class="schedules"><thead><tr><th>Schedule</th><th>Rule</th><th>Next firing</th><th>Recent firings</th></tr></thead>
<tbody>${schedules.map(
    (
      schedule,
    ) => html`<tr data-schedule="${schedule.id}"><td>${schedule.name}<div class="muted">${schedule.repoRoot}</div></td>
<td><code>${schedule.description}</code>${schedule.problem ? html`<div class="warning">${schedule.problem}</div>` : ""}</td>
<td>${schedule.nextFiring ? html`${schedule.nextFiring.local} <span class="muted">${schedule.nextFiring.timezone}</span><div class="muted">${schedule.nextFiring.utc} UTC</div>` : "never"}
${schedule.overdueSince ? html`<div class="warning">overdue since ${schedule.overdueSince.utc} UTC: is <code>loopwright serve</code> running?</div>` : ""}</td>
<td><ul class="firings">${schedule.recentFirings.map(
      (firing) =>
        html`<li>${firing.time.utc} UTC ${badge(firingTone(firing.outcome), firing.outcome)}${firing.loopId ? html` <a href="${links.loop(firing.loopId)}">${firing.loopId}</a>` : ""}${firing.reason ? html` <span class="muted">${firing.reason}</span>` : ""}</li>`,
    )}</ul></td></tr>`,
  )}</tbody></table>`;
}

function firingTone(outcome: string): string {
  if (outcome === "started" || outcome === "queued") return "pass";
  if (outcome === "failed") return "fail";
  return "pending";
}
