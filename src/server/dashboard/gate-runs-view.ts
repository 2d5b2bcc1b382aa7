/**
 * An iteration's gate runs: per gate and phase, the exit code, duration, tests executed, the baseline
 * comparison (new failures against those the base commit already had), the gate's standing (pass, fail,
 * flaky, pending) with its flake note, links to the full log and to its failure digest (read on the
 * log's page, so that this table reads no file).
 */
import { html } from "hono/html";
import type { GateResult } from "../../core/events.ts";
import { type GateSpec, isDeterministic } from "../../core/spec.ts";
import { assessGate } from "../../loop/gate-assessment.ts";
import { describeRed } from "../../loop/gate-wording.ts";
import { allGateResults, type IterationState, type LoopState } from "../../loop/state.ts";
import type { GateRunPlace } from "./digest-view.ts";
import { duration } from "./format.ts";
import { links } from "./links.ts";
import { badge, type Markup } from "./page-layout.ts";

/** The gates of one iteration (or of the baseline when `iteration` is undefined). */
export function gateRunsView(state: LoopState, place: GateRunPlace, iteration?: IterationState): Markup {
  const results = iteration ? allGateResults(iteration) : Object.values(state.baseline);
  const running = iteration
    ? iteration.gatesRunning
    : state.baselineRunning.map((gateId) => ({ gateId, phase: "baseline" }));
  if (results.length === 0 && running.length === 0)
    return html`<p class="muted">${iteration && !iteration.ended ? "Not yet." : "No gate ran."}</p>`;
  const gateIds = [
    ...new Set([...results.map((result) => result.id), ...running.map((entry) => entry.gateId)]),
  ];
  return html`<table class="gates"><thead><tr><th>Gate</th><th>Standing</th><th>Phase</th><th>Exit</th><th>Duration</th><th>Tests</th><th>Against the base commit</th><th>Log</th></tr></thead>
<tbody>${gateIds.map((gateId) => gateRows(state, place, gateId, results, running, iteration))}</tbody></table>`;
}

function gateRows(
  state: LoopState,
  place: GateRunPlace,
  gateId: string,
  results: GateResult[],
  running: { gateId: string; phase: string }[],
  iteration: IterationState | undefined,
): Markup {
  const gate = state.spec.gates.find((candidate) => candidate.id === gateId);
  const runs = results.filter((result) => result.id === gateId);
  const standing = iteration && gate ? gateStanding(state, gate, iteration) : undefined;
  const baseline = state.baseline[gateId];
  const rows = runs.map(
    (result, index) => html`<tr class="${result.passed ? "passed" : "failed"}">
${
  index === 0
    ? html`<th rowspan="${runs.length}" scope="row">${gateId}<div class="muted">${result.kind}</div><code class="command">${result.command}</code></th>
<td rowspan="${runs.length}">${standing ?? badge(result.passed ? "pass" : "fail")}</td>`
    : ""
}
<td>${result.phase}</td>
<td class="number">${result.exitCode ?? "–"}${result.timedOut ? html` <span class="badge status-fail">timed out</span>` : ""}</td>
<td class="number">${duration(result.durationMs)}</td>
<td class="number">${result.testsExecuted ?? "–"}</td>
<td>${comparison(result, baseline, gate)}</td>
<td><a href="${links.gateLog(place.loopId, place.iteration, result.id, result.phase)}">full log</a>
${result.passed || !result.digestPath ? "" : html`· <a href="${links.gateLog(place.loopId, place.iteration, result.id, result.phase)}#digest">digest</a>`}</td>
</tr>`,
  );
  const pending = running
    .filter((entry) => entry.gateId === gateId)
    .map(
      (entry) =>
        html`<tr class="running"><th scope="row">${gateId}</th><td>${badge("running")}</td><td>${entry.phase}</td><td colspan="5">running…</td></tr>`,
    );
  return html`${rows}${pending}`;
}

/** pass / fail / flaky / pending, with the flake note where the gate passed and failed on one commit. */
function gateStanding(state: LoopState, gate: GateSpec, iteration: IterationState): Markup {
  if (!isDeterministic(gate)) return badge("pending", "verifier rules");
  const assessment = assessGate(gate, iteration, state.baseline[gate.id], { confirm: true });
  if (assessment.status !== "flaky") return badge(assessment.status);
  const note =
    gate.flaky === "report"
      ? "passed and failed on this commit; reported, not blocking (flaky: report)"
      : "passed and failed on this commit: it cannot make the loop verified (flaky: block)";
  return html`${badge("flaky")}<div class="flake-note">${note}</div>`;
}

/** New failures versus those the base commit already had; why a red run is red. */
function comparison(
  result: GateResult,
  baseline: GateResult | undefined,
  gate: GateSpec | undefined,
): Markup {
  if (result.phase === "baseline") {
    return html`${result.passed ? "green on the base commit" : html`red on the base commit: ${(result.failures ?? []).length} failing`}`;
  }
  const why = result.passed ? "" : describeRed(result, gate?.timeout);
  const before = new Set(baseline?.failures ?? []);
  const failing = result.passed ? [] : (result.failures ?? []);
  const fresh = failing.filter((name) => !before.has(name));
  const old = failing.filter((name) => before.has(name));
  const incomplete = result.incomplete
    ? html`<div class="warning">not a run of the suite: ${result.incomplete}</div>`
    : "";
  const baselineNote = !baseline
    ? ""
    : baseline.passed
      ? html`<span class="muted">base commit green</span>`
      : html`<span class="muted">base commit had ${(baseline.failures ?? []).length} failing</span>`;
  return html`${why}${incomplete}
${fresh.length > 0 ? html`<div><strong>${fresh.length} new:</strong> ${failureList(fresh)}</div>` : ""}
${old.length > 0 ? html`<div>${old.length} pre-existing: ${failureList(old)}</div>` : ""}
${result.rerunOnly ? html`<div class="muted">re-ran only: ${result.rerunOnly.join(", ")}</div>` : ""}
<div>${baselineNote}</div>`;
}

function failureList(names: string[]): Markup {
  const shown = names.slice(0, 8);
  return html`${shown.map((name, index) => html`${index > 0 ? ", " : ""}<code>${name}</code>`)}${names.length > shown.length ? ` and ${names.length - shown.length} more` : ""}`;
}
