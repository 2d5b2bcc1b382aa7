/**
 * One iteration of the glass box: what it cost and how it ended, the claimed-vs-verified panel, the
 * brief as sent, the commit with its files and the scope screen, the gates, the tamper flags, the
 * verifier's reasoning, and the replanning that followed it.
 */
import { html } from "hono/html";
import { isDeterministic } from "../../core/spec.ts";
import { assessGate } from "../../loop/gate-assessment.ts";
import type { IterationState, LoopState } from "../../loop/state.ts";
import { clock, dollars, duration, shortSha, tokens } from "./format.ts";
import { gateRunsView } from "./gate-runs-view.ts";
import { factsOf, type IterationFacts } from "./iteration-facts.ts";
import { links } from "./links.ts";
import type { LoopView } from "./loop-view.ts";
import { badge, type Markup } from "./page-layout.ts";
import { reviewsView } from "./review-view.ts";
import { tamperView, verdictView } from "./verdict-view.ts";

export function iterationView(view: LoopView, state: LoopState, iteration: IterationState): Markup {
  const loopId = view.loop.id;
  const facts = factsOf(view.events, iteration.number);
  const outcome = iteration.ended?.outcome ?? "running";
  const n = iteration.number;
  const place = { loopId, iteration: n, sha: iteration.commit?.sha };
  const elapsed =
    facts.startedAt && facts.endedAt ? Date.parse(facts.endedAt) - Date.parse(facts.startedAt) : undefined;
  return html`<section class="iteration outcome-${outcome}" id="iteration-${n}" data-iteration="${n}">
<h3>Iteration ${n} ${badge(outcome)} <span class="summary">${iteration.ended?.summary ?? ""}</span></h3>
<p class="facts">started ${clock(facts.startedAt)} · ${duration(elapsed)} · cost ${dollars(facts.costUsd)} · tokens ${tokens(facts.tokens.input)} in / ${tokens(facts.tokens.output)} out
${iteration.makerAttempts > 1 ? html` · maker attempts ${iteration.makerAttempts}` : ""}
${iteration.ended?.fingerprint ? html` · fingerprint <code title="${iteration.ended.fingerprint}">${iteration.ended.fingerprint.slice(0, 12)}</code>${iteration.ended.repeat ? html` ${badge("fail", "repeat")}` : ""}` : ""}</p>
${claimedVersusVerified(state, iteration, facts)}
<details id="brief-${n}"><summary>Brief as sent (${Buffer.byteLength(iteration.brief)} bytes)</summary>
<pre class="brief">${iteration.brief}</pre><a href="${links.brief(loopId, n)}">open the brief alone</a></details>
<h4>Commit</h4>${commitView(loopId, iteration)}
<h4>Gates</h4>${gateRunsView(state, place, iteration)}
${reviewsView(loopId, iteration)}
<h4>Tamper flags</h4>${tamperView(loopId, state, iteration)}
<h4>Verifier</h4>${verdictView(loopId, iteration, facts)}
${facts.replans.map(
  (
    replan,
  ) => html`<div class="replan"><h4>Replanned after iteration ${n} ${badge(replan.status === "completed" ? "pass" : "fail", replan.status)}</h4>
${replan.approach ? html`<p>${replan.approach}</p>` : ""}
${replan.hypotheses?.length ? html`<ul>${replan.hypotheses.map((hypothesis) => html`<li>${hypothesis}</li>`)}</ul>` : ""}
${replan.error ? html`<p class="warning">${replan.error}</p>` : ""}</div>`,
)}
</section>`;
}

/** What the maker said it did, beside what the gates and the verifier found. */
function claimedVersusVerified(state: LoopState, iteration: IterationState, facts: IterationFacts): Markup {
  const maker = facts.maker;
  const claimed = iteration.makerRunning
    ? html`<p>${badge("running")} the maker is working…</p>`
    : maker
      ? html`<p class="muted">maker ${maker.status}, ${duration(maker.durationMs)}${maker.error ? html`: <span class="warning">${maker.error}</span>` : ""}</p>
<pre class="account">${maker.account || "(the maker said nothing)"}</pre>`
      : html`<p class="muted">The maker has not finished a turn.</p>`;
  const gateLines = state.spec.gates.filter(isDeterministic).map((gate) => {
    const assessment = assessGate(gate, iteration, state.baseline[gate.id], { confirm: true });
    const fresh = assessment.newFailures.length;
    return html`<li>${badge(assessment.status)} ${gate.id}${fresh > 0 ? html` — ${fresh} new failing` : ""}${
      assessment.preexistingFailures.length > 0
        ? html` (${assessment.preexistingFailures.length} pre-existing)`
        : ""
    }</li>`;
  });
  const verdict = iteration.verifier?.verdict;
  const blocking = iteration.tamperFlags.length;
  return html`<div class="claimed-verified">
<div class="claimed"><h4>Claimed</h4>${claimed}</div>
<div class="verified"><h4>Verified</h4><ul class="gate-standings">${gateLines}
<li>${iteration.verifier ? badge(verdict?.overall ?? iteration.verifier.status, `verifier: ${verdict?.overall ?? iteration.verifier.status}`) : badge("pending", "verifier: not run")}</li>
${blocking > 0 ? html`<li>${badge("fail", `${blocking} tamper flag${blocking === 1 ? "" : "s"}`)}</li>` : ""}</ul>
<p>${iteration.ended ? html`Outcome: ${badge(iteration.ended.outcome)} ${iteration.ended.summary}` : "Not decided yet."}</p></div>
</div>`;
}

function commitView(loopId: string, iteration: IterationState): Markup {
  const commit = iteration.commit;
  if (!commit) return html`<p class="muted">${iteration.ended ? "No commit." : "Not yet."}</p>`;
  const screen = iteration.screen;
  const violations = screen?.scopeViolations ?? [];
  return html`<p><code>${shortSha(commit.sha)}</code> ${commit.committed ? "" : html`<span class="muted">(no new commit: the maker changed nothing)</span>`}
${commit.files.length > 0 ? html`· ${commit.files.length} file${commit.files.length === 1 ? "" : "s"} · <a href="${links.diff(loopId, iteration.number)}">change per file</a>` : ""}</p>
${commit.files.length > 0 ? html`<ul class="files">${commit.files.map((file) => html`<li><code>${file}</code>${violations.some((violation) => violation.file === file) ? html` ${badge("fail", "out of scope")}` : ""}${screen?.protectedFiles.includes(file) ? html` ${badge("pending", "protected")}` : ""}</li>`)}</ul>` : ""}
${violations.length > 0 ? html`<p class="warning">Scope: ${violations.map((violation) => html`<code>${violation.file}</code> (${violation.rule}) `)}</p>` : ""}`;
}
