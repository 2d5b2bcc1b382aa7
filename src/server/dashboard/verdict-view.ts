/**
 * The verifier's side of an iteration: its status and overall ruling, its reasoning per gate with the
 * evidence linked to the cited file and line at the graded commit (or the quoted gate output), the tamper
 * flags with its ruling on each, and any verdict loopwright rejected.
 */
import { html } from "hono/html";
import type { Evidence, GateRuling } from "../../core/events.ts";
import type { IterationState, LoopState } from "../../loop/state.ts";
import { describeRuling, tamperStandings } from "../../loop/tamper-standing.ts";
import type { IterationFacts } from "./iteration-facts.ts";
import { links } from "./links.ts";
import { badge, type Markup } from "./page-layout.ts";

export function verdictView(loopId: string, iteration: IterationState, facts: IterationFacts): Markup {
  const verifier = iteration.verifier;
  if (iteration.verifierRunning) return html`<p>${badge("running")} the verifier is ruling…</p>`;
  if (!verifier)
    return html`<p class="muted">${iteration.ended ? "The verifier did not run on this iteration." : "Not yet."}</p>`;
  const sha = iteration.commit?.sha;
  const verdict = verifier.verdict;
  return html`<p>${badge(verdict ? verdict.overall : verifier.status, verdict ? `overall: ${verdict.overall}` : verifier.status)}
${verifier.error ? html` <span class="warning">${verifier.error}</span>` : ""}</p>
${facts.verifier?.disagreement ? html`<p class="warning">loopwright overruled the verifier's overall: ${facts.verifier.disagreement}</p>` : ""}
${
  verdict
    ? html`<table class="rulings"><thead><tr><th>Gate</th><th>Ruling</th><th>Reasoning</th><th>Evidence</th></tr></thead>
<tbody>${verdict.gates.map((ruling) => rulingRow(loopId, iteration.number, sha, ruling))}</tbody></table>`
    : ""
}
${verdict?.notes ? html`<p><strong>Notes:</strong> ${verdict.notes}</p>` : ""}
${facts.rejectedVerdicts.map(
  (
    rejected,
  ) => html`<details class="rejected"><summary>A verdict was rejected: ${rejected.problems.length} problem(s)</summary>
<ul>${rejected.problems.map((problem) => html`<li>${problem}</li>`)}</ul><pre>${rejected.output}</pre></details>`,
)}`;
}

function rulingRow(loopId: string, iteration: number, sha: string | undefined, ruling: GateRuling): Markup {
  return html`<tr class="${ruling.passed ? "passed" : "failed"}"><th scope="row">${ruling.id}</th>
<td>${badge(ruling.passed ? "pass" : "fail")}</td>
<td>${ruling.reason ?? ""}</td>
<td><ul class="evidence">${ruling.evidence.map((evidence) => html`<li>${evidenceLink(loopId, iteration, sha, evidence)}</li>`)}</ul></td></tr>`;
}

/** A cited file and line opens the file at the graded commit; a quoted gate output links to that gate's log. */
function evidenceLink(
  loopId: string,
  iteration: number,
  sha: string | undefined,
  evidence: Evidence,
): Markup {
  if ("file" in evidence) {
    const label = `${evidence.file}${evidence.line ? `:${evidence.line}` : ""}`;
    if (!sha) return html`<code>${label}</code>`;
    return html`<a href="${links.fileAt(loopId, sha, evidence.file, evidence.line)}"><code>${label}</code></a>`;
  }
  return html`gate <a href="${links.gateLog(loopId, iteration, evidence.gate, "grade")}">${evidence.gate}</a>: <q>${evidence.quote}</q>`;
}

/** The iteration's tamper flags, each with its class (who decides) and the verifier's ruling. */
export function tamperView(loopId: string, state: LoopState, iteration: IterationState): Markup {
  const standings = tamperStandings(state.spec, iteration);
  if (standings.length === 0) return html`<p class="muted">No tamper flags.</p>`;
  const sha = iteration.commit?.sha;
  return html`<table class="tamper"><thead><tr><th>Flag</th><th>Class</th><th>Where</th><th>What</th><th>Verifier's ruling</th></tr></thead>
<tbody>${standings.map(({ flag, standing, ruling }) => {
    const where = flag.file ? `${flag.file}${flag.line ? `:${flag.line}` : ""}` : "";
    return html`<tr><th scope="row">${flag.id}</th><td>${badge(standing === "blocking" ? "fail" : "pending", standing === "accepted" ? "blocking, accepted" : standing)}</td>
<td>${flag.file && sha ? html`<a href="${links.fileAt(loopId, sha, flag.file, flag.line)}"><code>${where}</code></a>` : html`<code>${where}</code>`}</td>
<td>${flag.kind}: ${flag.detail}</td><td>${describeRuling(ruling)}</td></tr>`;
  })}</tbody></table>`;
}
