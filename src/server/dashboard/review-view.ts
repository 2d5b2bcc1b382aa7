/**
 * An iteration's review rounds (`review:` in the spec): each round's patch, the reviewer's verdict, its
 * findings by severity linked to the cited file and line at the reviewed commit, and the findings
 * loopwright set aside because they cite nothing in the patch.
 */
import { html } from "hono/html";
import type { IterationState, ReviewRound } from "../../loop/state.ts";
import { shortSha } from "./format.ts";
import { links } from "./links.ts";
import { badge, type Markup } from "./page-layout.ts";

export function reviewsView(loopId: string, iteration: IterationState): Markup {
  if (iteration.reviews.length === 0) return html``;
  return html`<h4>Review rounds</h4>${iteration.reviews.map((review) => roundView(loopId, review))}`;
}

function roundView(loopId: string, review: ReviewRound): Markup {
  const outcome = review.running
    ? badge("running", "reviewing…")
    : review.verdict
      ? badge(review.verdict === "ok" ? "pass" : "fail", review.verdict)
      : badge("fail", review.status ?? "not finished");
  return html`<div class="review-round"><p>Round ${review.round}: <code>${shortSha(review.fromSha)}</code>..<code>${shortSha(review.sha)}</code>, ${review.files.length} file${review.files.length === 1 ? "" : "s"} ${outcome}
${review.rejections > 0 ? html` <span class="muted">(${review.rejections} malformed answer${review.rejections === 1 ? "" : "s"} retried)</span>` : ""}
${review.error ? html` <span class="warning">${review.error}</span>` : ""}</p>
${
  review.findings.length > 0
    ? html`<ul class="findings">${review.findings.map(
        (finding) =>
          html`<li>${badge(finding.severity === "blocker" || finding.severity === "major" ? "fail" : "pending", finding.severity)} <a href="${links.fileAt(loopId, review.sha, finding.file, finding.line)}"><code>${finding.file}${finding.line ? `:${finding.line}` : ""}</code></a> ${finding.message}</li>`,
      )}</ul>`
    : ""
}
${review.dropped.length > 0 ? html`<details><summary>${review.dropped.length} finding${review.dropped.length === 1 ? "" : "s"} set aside</summary><ul>${review.dropped.map((finding) => html`<li><code>${finding.file}${finding.line ? `:${finding.line}` : ""}</code> ${finding.message} <span class="muted">(${finding.reason})</span></li>`)}</ul></details>` : ""}
</div>`;
}
