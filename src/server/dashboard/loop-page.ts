/**
 * One loop's page, the glass box: its status and current phase, goal, budget and spending against the
 * caps, the owner's forms, the charts, and the timeline of iterations and interventions. The part under
 * `#live` is also served alone as a fragment, which the live script swaps in when an event arrives.
 */
import { html } from "hono/html";
import { countedIterations, type LoopState } from "../../loop/state.ts";
import {
  controlForms,
  type FormMessage,
  messageView,
  type SteerFormValues,
  steerForm,
} from "./action-forms.ts";
import { chartsView } from "./charts.ts";
import { capText, clock, dollars, duration, shortSha, tokens } from "./format.ts";
import { links } from "./links.ts";
import { costToday, type LoopView, phaseInWords, statusTone } from "./loop-view.ts";
import { badge, type Markup, page } from "./page-layout.ts";
import { strategyView } from "./strategy-view.ts";
import { timelineView } from "./timeline-view.ts";

export interface LoopPageOptions {
  secret: string;
  message?: FormMessage;
  steerValues?: SteerFormValues;
}

export function loopPage(view: LoopView, options: LoopPageOptions): Markup {
  const state = view.state;
  const body = state
    ? html`${livePart("head", loopHead(view, options.secret, options.message))}
${
  state.stopReason === "verified"
    ? html`${messageView(options.message, "steer")}<p class="muted">Verified and finished: steering would never apply; start a new loop for a new goal.</p>`
    : html`<details class="steer-panel" id="steer-panel" ${options.message?.form === "steer" ? html`open` : ""}><summary>Steer this loop: goal, gates, budget</summary>
${steerForm(view.loop.id, state, options.secret, options.message, options.steerValues)}</details>`
}
${livePart("body", loopBody(view))}`
    : html`<h1>${view.loop.name}</h1><p class="warning">This loop cannot be read: ${view.problem ?? "damaged"}</p>`;
  return page(
    {
      title: view.loop.name,
      liveEvents: `/api/loops/${encodeURIComponent(view.loop.id)}/events`,
      liveFragment: links.loopFragment(view.loop.id),
    },
    body,
  );
}

/**
 * A part of a page the live script replaces when an event arrives: the fragment route answers the
 * same parts, matched by name.
 */
export function livePart(name: string, content: Markup): Markup {
  return html`<div data-live-part="${name}">${content}</div>`;
}

/** Every live part of a loop's page, as the fragment route answers them. */
export function loopFragment(view: LoopView, secret: string): Markup {
  return html`${livePart("head", loopHead(view, secret))}${livePart("body", loopBody(view))}`;
}

/** The loop's header with the pause, resume and cancel buttons its status allows. */
function loopHead(view: LoopView, secret: string, message?: FormMessage): Markup {
  const state = view.state;
  if (!state) return html`<p class="warning">This loop cannot be read: ${view.problem ?? "damaged"}</p>`;
  return html`${header(view, state)}${controlForms(view.loop.id, view.status, secret, message, state.stopReason === "verified")}`;
}

/** The charts, the strategy's section and the timeline. */
function loopBody(view: LoopView): Markup {
  const state = view.state;
  if (!state) return html``;
  return html`${view.damaged.length > 0 ? html`<p class="warning">${view.damaged.length} damaged event row(s) skipped: ${view.damaged.map((entry) => `seq ${entry.seq}: ${entry.reason}`).join("; ")}</p>` : ""}
${chartsView(view, state)}
${strategyView(view.loop.id, view.strategy)}
<h2>Timeline</h2>
${timelineView(view, state)}`;
}

function header(view: LoopView, state: LoopState): Markup {
  const budget = state.spec.budget;
  return html`<section class="loop-header" data-status="${view.status}">
<h1>${view.loop.name} <small class="muted">${view.loop.id}</small></h1>
<p class="status-line">${statusLine(view, state)}</p>
${state.stopMessage ? html`<p class="stop-message">${state.stopMessage}</p>` : ""}
<blockquote class="goal">${state.spec.goal}</blockquote>
<dl class="facts-grid">
<dt>Iteration</dt><dd>${countedIterations(state)} / ${capText(budget.maxIterations)}</dd>
<dt>Cost today</dt><dd>${dollars(costToday(state))} of ${capText(budget.maxCostUsdPerDay, dollars)}/day</dd>
<dt>Cost total</dt><dd>${dollars(state.costUsd)}${state.uncostedTurns > 0 ? ` (+${state.uncostedTurns} uncosted turns)` : ""}</dd>
<dt>Per iteration</dt><dd>${capText(budget.maxCostUsdPerIteration, dollars)}, ${capText(budget.wallClockPerIteration, duration)}</dd>
<dt>Tokens</dt><dd>${tokens(state.tokens.input)} in / ${tokens(state.tokens.output)} out</dd>
<dt>Engines</dt><dd>maker ${state.spec.maker.engine}, verifier ${state.spec.verifier.engine}</dd>
<dt>Branch</dt><dd><code>${state.spec.branch}</code> from <code>${shortSha(state.baseSha)}</code></dd>
<dt>Repository</dt><dd><code>${view.loop.repoRoot}</code></dd>
<dt>Created</dt><dd>${clock(view.loop.createdAt)}</dd>
<dt>Gates</dt><dd>${state.spec.gates.map((gate, index) => html`${index > 0 ? ", " : ""}<code>${gate.id}</code>`)}</dd>
</dl></section>`;
}

/** The status badge with what goes with it: queue position, current phase, park time, stop reason. */
function statusLine(view: LoopView, state: LoopState): Markup {
  const detail = (() => {
    switch (view.status) {
      case "queued":
        return view.queuePosition ? `#${view.queuePosition} in the queue` : "waiting for the service";
      case "running":
        return phaseInWords(state) ?? "";
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
  return html`${badge(statusTone(view.status, state.stopReason), view.status)} <span class="phase">${detail}</span>`;
}
