/**
 * The loops page: every loop with its status (queued with its position, running with its current
 * phase, stopped with its reason), iteration n/max, cost today and in total against its caps, and a
 * strip of its iterations' outcomes; then the scheduled loops.
 */
import { html } from "hono/html";
import { countedIterations } from "../../loop/state.ts";
import { capText, clock, dollars } from "./format.ts";
import { costToday, currentPhase, type LoopView } from "./loop-view.ts";
import { badge, type Markup } from "./page-layout.ts";

/** A schedule as the loops page lists it (the schedules helper's `listSchedules` rows fit). */
export interface ScheduleRow {
  name: string;
  /** `cron 0 3 * * 1-5 (Europe/Paris)` or `every 30m`. */
  rule: string;
  nextFiring?: string;
  lastFiring?: string;
}

/** The live part of the loops page, swapped in place when an event arrives. */
export function loopsFragment(views: LoopView[], schedules: ScheduleRow[]): Markup {
  return html`<section><h1>Loops</h1>
${views.length === 0 ? html`<p class="empty">No loops yet. <a href="/loops/new">Start one</a>.</p>` : loopsTable(views)}
</section>
<section><h2>Scheduled</h2>
${schedules.length === 0 ? html`<p class="empty">No schedules.</p>` : schedulesTable(schedules)}
</section>`;
}

function loopsTable(views: LoopView[]): Markup {
  return html`<table class="loops"><thead><tr>
<th>Loop</th><th>Status</th><th>Iteration</th><th>Cost today</th><th>Cost total</th><th>Outcomes</th><th>Created</th>
</tr></thead><tbody>${views.map(loopRow)}</tbody></table>`;
}

function loopRow(view: LoopView): Markup {
  const { loop, state } = view;
  if (!state) {
    return html`<tr data-loop="${loop.id}"><td><a href="/loops/${loop.id}">${loop.name}</a></td>
<td>${badge("damaged")} ${view.problem ?? ""}</td><td></td><td></td><td></td><td></td><td>${clock(loop.createdAt)}</td></tr>`;
  }
  const budget = state.spec.budget;
  return html`<tr data-loop="${loop.id}" data-status="${view.status}">
<td><a href="/loops/${loop.id}">${loop.name}</a><div class="muted">${loop.repoRoot}</div></td>
<td>${statusCell(view)}</td>
<td class="number">${countedIterations(state)} / ${capText(budget.maxIterations)}</td>
<td class="number">${dollars(costToday(state))} <span class="muted">of ${capText(budget.maxCostUsdPerDay, dollars)}/day</span></td>
<td class="number">${dollars(state.costUsd)}${state.uncostedTurns > 0 ? html` <span class="muted" title="turns whose engine reports no cost">+${state.uncostedTurns} uncosted</span>` : ""}</td>
<td>${outcomeStrip(view)}</td>
<td>${clock(loop.createdAt)}</td>
</tr>`;
}

/** The status badge with what goes with it: queue position, current phase, park time, stop reason. */
export function statusCell(view: LoopView): Markup {
  const state = view.state;
  const detail = (() => {
    if (!state) return view.problem ?? "";
    switch (view.status) {
      case "queued":
        return view.queuePosition ? `#${view.queuePosition} in the queue` : "waiting for the service";
      case "running":
        return currentPhase(state) ?? "";
      case "parked":
        return `daily cost cap spent; until ${clock(state.parkedUntil)}`;
      case "stopped":
        return state.stopReason ?? "";
      case "interrupted":
        return "its controller is gone; resume continues it";
      default:
        return "";
    }
  })();
  const tone = view.status === "stopped" && state?.stopReason === "verified" ? "verified" : view.status;
  return html`${badge(tone, view.status)} <span class="phase">${detail}</span>`;
}

/** One square per iteration, coloured by outcome, each linking to its iteration on the loop's page. */
export function outcomeStrip(view: LoopView): Markup {
  const iterations = view.state?.iterations ?? [];
  return html`<span class="strip">${iterations.map((iteration) => {
    const outcome = iteration.ended?.outcome ?? "running";
    return html`<a class="cell outcome-${outcome}" href="/loops/${view.loop.id}#iteration-${iteration.number}" title="iteration ${iteration.number}: ${outcome}">${iteration.number}</a>`;
  })}</span>`;
}

function schedulesTable(schedules: ScheduleRow[]): Markup {
  return html`<table class="schedules"><thead><tr><th>Schedule</th><th>Rule</th><th>Next firing</th><th>Last firing</th></tr></thead>
<tbody>${schedules.map(
    (schedule) =>
      html`<tr><td>${schedule.name}</td><td><code>${schedule.rule}</code></td><td>${clock(schedule.nextFiring)}</td><td>${clock(schedule.lastFiring)}</td></tr>`,
  )}</tbody></table>`;
}
