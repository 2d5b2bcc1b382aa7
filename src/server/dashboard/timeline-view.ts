/**
 * The glass box's timeline: iterations interleaved, in the order they happened, with the owner's
 * interventions (steer, pause, resume, cancel, queueing: who, from where, when) and the loop's own
 * turns (runs, baseline, steering applied, parking, stop).
 */
import { html } from "hono/html";
import type { SteeringChange, SteerRequest } from "../../core/events.ts";
import { describeCiEvent } from "../../loop/ci-wording.ts";
import type { IterationState, LoopState } from "../../loop/state.ts";
import { clock, duration } from "./format.ts";
import { gateRunsView } from "./gate-runs-view.ts";
import { iterationView } from "./iteration-view.ts";
import { links } from "./links.ts";
import type { LoopView } from "./loop-view.ts";
import { badge, type Markup } from "./page-layout.ts";

/** Who did an owner action (`by` in the event's data), as the shared vocabulary records it. */
export interface Actor {
  via: string;
  name: string;
}

/** Iterations shown in full on the loop's page; older ones are one line each, linking to their own page. */
export const fullIterations = 10;

export function timelineView(view: LoopView, state: LoopState): Markup {
  const entries: Markup[] = [];
  const firstFull = (state.iterations.at(-1)?.number ?? 0) - fullIterations + 1;
  const iterations = new Map(state.iterations.map((iteration) => [iteration.number, iteration]));
  let baselineShown = false;
  for (const event of view.events) {
    if (event.type === "iteration_started") {
      const iteration = iterations.get(event.data.iteration);
      if (iteration)
        entries.push(
          iteration.number >= firstFull
            ? iterationView(view, state, iteration)
            : compactIteration(view.loop.id, iteration),
        );
      continue;
    }
    if (!baselineShown && event.type === "gate_started" && event.data.phase === "baseline") {
      baselineShown = true;
      entries.push(html`<section class="baseline" id="iteration-0"><h3>Baseline: the gates on the base commit</h3>
${gateRunsView(state, { loopId: view.loop.id, iteration: 0, sha: state.baseSha })}</section>`);
      continue;
    }
    const ciLine = describeCiEvent(event);
    const note = ciLine
      ? { owner: false, text: html`${ciLine}` }
      : eventNote(event as unknown as { type: string; at: string; data: Record<string, unknown> });
    if (note)
      entries.push(
        html`<div class="event ${note.owner ? "owner" : "loop"}" data-type="${event.type}"><time>${clock(event.at)}</time> ${note.text}</div>`,
      );
  }
  return html`<div class="timeline">${entries}</div>`;
}

/** An older iteration in one line: outcome, summary, and a link to its own page. */
function compactIteration(loopId: string, iteration: IterationState): Markup {
  const outcome = iteration.ended?.outcome ?? "running";
  return html`<section class="iteration compact outcome-${outcome}" id="iteration-${iteration.number}" data-iteration="${iteration.number}">
<h3><a href="${links.iterationPage(loopId, iteration.number)}">Iteration ${iteration.number}</a> ${badge(outcome)} <span class="summary">${iteration.ended?.summary ?? ""}</span></h3></section>`;
}

type Note = { owner: boolean; text: Markup } | undefined;

/** The line for one loop-level event, or undefined for events that belong to an iteration. */
function eventNote(event: { type: string; at: string; data: Record<string, unknown> }): Note {
  const data = event.data;
  // Only the owner's actions name their actor: not built for the thousand other events of a timeline.
  const by = () => actorText(data.by);
  switch (event.type) {
    case "loop_created":
      return {
        owner: false,
        text: html`loop created on branch <code>${String(data.branch)}</code> from <code>${String(data.baseSha).slice(0, 10)}</code>`,
      };
    case "loop_queued":
      return {
        owner: true,
        text: html`${badge("queued")} queued to ${String(data.command ?? "run")} ${by()}`,
      };
    case "run_started":
      return {
        owner: false,
        text: html`${String(data.command)} started (pid ${String(data.pid)} on ${String(data.host)})`,
      };
    case "steer_requested":
      return {
        owner: true,
        text: html`${badge("steer")} steering requested ${by()}: ${describeRequest(data.request as SteerRequest)}`,
      };
    case "steering_applied":
      return {
        owner: false,
        text: html`steering applied: ${(data.changes as SteeringChange[]).map(describeChange)}`,
      };
    case "pause_requested":
      return { owner: true, text: html`${badge("paused", "pause")} pause requested ${by()}` };
    case "resume_requested":
      return { owner: true, text: html`${badge("running", "resume")} resume requested ${by()}` };
    case "cancel_requested":
      return { owner: true, text: html`${badge("stopped", "cancel")} cancel requested ${by()}` };
    case "loop_paused":
      return { owner: false, text: html`${badge("paused")} the loop paused` };
    case "loop_resumed":
      return { owner: false, text: html`the loop resumed` };
    case "loop_parked":
      return {
        owner: false,
        text: html`${badge("parked")} daily cost cap spent ($${Number(data.spentTodayUsd).toFixed(2)} of $${String(data.capUsd)}): parked until ${clock(String(data.until))}`,
      };
    case "loop_unparked":
      return { owner: false, text: html`unparked: a new day` };
    case "loop_finished":
      return {
        owner: false,
        text: html`finished: ${data.pushed ? html`branch <code>${String(data.branch)}</code> pushed` : html`branch <code>${String(data.branch)}</code> at <code>${String(data.sha).slice(0, 10)}</code>`}${data.error ? html` <span class="warning">${String(data.error)}</span>` : ""}`,
      };
    case "pull_request_recorded": {
      if (data.error)
        return {
          owner: false,
          text: html`pull request not opened: <span class="warning">${String(data.error)}</span>`,
        };
      const url = String(data.url ?? "");
      const link = /^https?:\/\//.test(url) ? html`<a href="${url}">${url}</a>` : html`${url}`;
      return { owner: false, text: html`pull request ${data.created ? "opened" : "updated"}: ${link}` };
    }
    case "review_comment_received":
      return {
        owner: false,
        text: data.ignored
          ? html`comment ${String(data.id)} by ${String(data.author)} ignored: ${String(data.ignored)}`
          : html`review request ${String(data.id)} by <strong>${String(data.author)}</strong>: ${String(data.body ?? "").slice(0, 200)}`,
      };
    case "review_comment_answered":
      return {
        owner: false,
        text: html`review request ${String(data.id)} answered: <strong>${String(data.outcome)}</strong>${data.error ? html` <span class="warning">${String(data.error)}</span>` : ""}`,
      };
    case "loop_stopped":
      return {
        owner: false,
        text: html`${badge("stopped")} stopped: <strong>${String(data.reason)}</strong> — ${String(data.message)}`,
      };
    case "setup_ran":
      return {
        owner: false,
        text: html`setup <code>${String(data.command)}</code> exited ${String(data.exitCode)} in ${duration(Number(data.durationMs))}`,
      };
    default:
      return undefined;
  }
}

/** `by web: loopback` — the actor of an owner action; older events did not record one. */
export function actorText(by: unknown): Markup {
  if (!by || typeof by !== "object") return html`<span class="muted">(actor not recorded)</span>`;
  const actor = by as Partial<Actor>;
  return html`by <span class="actor">${String(actor.via ?? "?")}: ${String(actor.name ?? "?")}</span>`;
}

function describeRequest(request: SteerRequest | undefined): Markup {
  if (!request) return html``;
  const parts: Markup[] = [];
  if (request.goal !== undefined) parts.push(html`goal → <q>${request.goal}</q>`);
  for (const gate of request.addGates ?? []) parts.push(html`add gate <code>${gate.id}</code>`);
  for (const id of request.removeGates ?? []) parts.push(html`remove gate <code>${id}</code>`);
  for (const [key, value] of Object.entries(request.budget ?? {}))
    parts.push(html`${key} → ${String(value)}`);
  return html`${parts.map((part, index) => html`${index > 0 ? "; " : ""}${part}`)}`;
}

function describeChange(change: SteeringChange, index: number): Markup {
  const value = (item: unknown) =>
    item === null || item === undefined
      ? "none"
      : typeof item === "object"
        ? JSON.stringify(item)
        : String(item);
  return html`${index > 0 ? "; " : ""}<code>${change.field}</code> ${value(change.old)} → ${value(change.new)}`;
}
