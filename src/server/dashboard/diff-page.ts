/**
 * An iteration's change, file by file, as the app layer reads it: the diff the scope screen judged
 * (the loop's change from its base commit up to this iteration's commit, redacted when recorded), each
 * file with the screen's findings (out of scope, protected) and the tamper flags raised on it.
 */
import { html } from "hono/html";
import type { AppContext } from "../../app/app-context.ts";
import { getIterationDiff } from "../../app/iteration-diff.ts";
import type { IterationDiff } from "../../app/schemas/file-schemas.ts";
import type { Spec } from "../../core/spec.ts";
import type { IterationState } from "../../loop/state.ts";
import { tamperStandings } from "../../loop/tamper-standing.ts";
import { parseUnifiedDiff } from "../../verify/tamper/unified-diff.ts";
import { shortSha } from "./format.ts";
import { links } from "./links.ts";
import type { LoopView } from "./loop-view.ts";
import { badge, type Markup, page } from "./page-layout.ts";

type DiffFile = IterationDiff["files"][number];

/** Hunk lines shown per file; the rest is counted. */
const linesPerFile = 5000;

export async function diffPage(
  context: AppContext,
  view: LoopView,
  iteration: IterationState,
): Promise<Markup> {
  const loopId = view.loop.id;
  const title = `${view.loop.name}: change at iteration ${iteration.number}`;
  const back = html`<p><a href="${links.iteration(loopId, iteration.number)}">← ${view.loop.name}, iteration ${iteration.number}</a></p>`;
  if (!iteration.screen) {
    return page(
      { title },
      html`${back}<h1>Change at iteration ${iteration.number}</h1><p class="muted">Not screened yet.</p>`,
    );
  }
  const diff = await getIterationDiff(context, loopId, { iteration: iteration.number });
  const spec = view.state?.spec;
  if (!spec) return page({ title }, html`${back}<p class="warning">This loop cannot be read.</p>`);
  const sha = diff.commit ?? undefined;
  return page(
    { title },
    html`${back}<h1>Change at iteration ${iteration.number}</h1>
<p>The loop's change from its base commit to <code>${shortSha(sha)}</code>, as the scope screen judged it:
${diff.files.length} file${diff.files.length === 1 ? "" : "s"}.</p>
<ol class="file-index">${diff.files.map((file, index) => html`<li><a href="#file-${index + 1}"><code>${file.path}</code></a> ${file.status} <span class="muted">+${file.additions} −${file.deletions}</span>${findings(spec, iteration, file)}</li>`)}</ol>
${diff.files.map((file, index) => fileDiff(spec, loopId, sha, iteration, file, index + 1))}`,
  );
}

/** The screen's findings about one file: out of scope, protected, tamper flags. */
function findings(spec: Spec, iteration: IterationState, file: DiffFile): Markup {
  const flags = tamperStandings(spec, iteration).filter(
    ({ flag }) => flag.file === file.path || flag.file === file.oldPath,
  );
  return html`${file.scopeViolation ? html` ${badge("fail", `out of scope (${file.scopeViolation})`)}` : ""}${file.protected ? html` ${badge("pending", "protected")}` : ""}${flags.map(({ flag, standing }) => html` ${badge(standing === "advisory" ? "pending" : "fail", `${flag.id} ${flag.kind}`)}`)}`;
}

function fileDiff(
  spec: Spec,
  loopId: string,
  sha: string | undefined,
  iteration: IterationState,
  file: DiffFile,
  number: number,
): Markup {
  const flags = iteration.tamperFlags.filter((flag) => flag.file === file.path || flag.file === file.oldPath);
  const hunks = parseUnifiedDiff(file.patch)[0]?.hunks ?? [];
  let shown = 0;
  return html`<section class="file-diff" id="file-${number}">
<h2><code>${file.oldPath !== file.path ? `${file.oldPath} → ` : ""}${file.path}</code> <small>${file.status}</small>${findings(spec, iteration, file)}
${file.status !== "deleted" && sha ? html` <a class="small" href="${links.fileAt(loopId, sha, file.path)}">file at ${shortSha(sha)}</a>` : ""}</h2>
${flags.map((flag) => html`<p class="warning">${flag.id} ${flag.kind}${flag.line ? ` at line ${flag.line}` : ""}: ${flag.detail}</p>`)}
${file.binary ? html`<p class="muted">Binary file.</p>` : ""}
<table class="diff"><tbody>${hunks.map(
    (
      hunk,
    ) => html`<tr class="hunk"><td colspan="3">@@ -${hunk.oldStart} +${hunk.newStart} @@ ${hunk.section}</td></tr>
${hunk.lines.map((line) => {
  shown += 1;
  if (shown > linesPerFile) return "";
  const kind = line.sign === "+" ? "added" : line.sign === "-" ? "removed" : "context";
  return html`<tr class="${kind}"><td class="number">${line.oldLine ?? ""}</td><td class="number">${line.newLine ?? ""}</td><td><code>${line.sign}${line.text}</code></td></tr>`;
})}`,
  )}</tbody></table>
${shown > linesPerFile ? html`<p class="muted">${shown - linesPerFile} more lines not shown.</p>` : ""}
</section>`;
}
