/**
 * An iteration's change, file by file: the diff from the iteration's start commit to its commit, read
 * through git, with the scope screen's findings and the tamper flags next to each file.
 */
import { html } from "hono/html";
import { diffText } from "../../git/diffs.ts";
import type { IterationState } from "../../loop/state.ts";
import { type DiffFile, parseUnifiedDiff } from "../../verify/tamper/unified-diff.ts";
import { shortSha } from "./format.ts";
import { links } from "./links.ts";
import type { LoopView } from "./loop-view.ts";
import { badge, type Markup, page } from "./page-layout.ts";

/** Hunk lines shown per file before the rest is left to git. */
const linesPerFile = 5000;

export async function diffPage(view: LoopView, iteration: IterationState): Promise<Markup> {
  const loopId = view.loop.id;
  const commit = iteration.commit;
  const back = html`<p><a href="${links.iteration(loopId, iteration.number)}">← ${view.loop.name}, iteration ${iteration.number}</a></p>`;
  if (!commit || commit.sha === iteration.startSha) {
    return page(
      { title: `${view.loop.name}: diff ${iteration.number}` },
      html`${back}<h1>Diff of iteration ${iteration.number}</h1><p class="muted">No change.</p>`,
    );
  }
  const files = parseUnifiedDiff(await diffText(view.loop.repoRoot, iteration.startSha, commit.sha));
  return page(
    { title: `${view.loop.name}: diff ${iteration.number}` },
    html`${back}<h1>Diff of iteration ${iteration.number}</h1>
<p><code>${shortSha(iteration.startSha)}</code> → <code>${shortSha(commit.sha)}</code>, ${files.length} file${files.length === 1 ? "" : "s"}</p>
<ol class="file-index">${files.map((file, index) => html`<li><a href="#file-${index + 1}"><code>${file.path}</code></a> ${file.status}${findings(iteration, file)}</li>`)}</ol>
${files.map((file, index) => fileDiff(loopId, commit.sha, iteration, file, index + 1))}`,
  );
}

/** The screen's findings about one file: out of scope, protected, tamper flags. */
function findings(iteration: IterationState, file: DiffFile): Markup {
  const screen = iteration.screen;
  const paths = new Set([file.path, file.oldPath]);
  const violations = (screen?.scopeViolations ?? []).filter((violation) => paths.has(violation.file));
  const protectedFile = (screen?.protectedFiles ?? []).some((path) => paths.has(path));
  const flags = iteration.tamperFlags.filter((flag) => flag.file && paths.has(flag.file));
  return html`${violations.map((violation) => html` ${badge("fail", `out of scope (${violation.rule})`)}`)}${protectedFile ? html` ${badge("pending", "protected")}` : ""}${flags.map((flag) => html` ${badge("fail", `${flag.id} ${flag.kind}`)}`)}`;
}

function fileDiff(
  loopId: string,
  sha: string,
  iteration: IterationState,
  file: DiffFile,
  number: number,
): Markup {
  let shown = 0;
  const flags = iteration.tamperFlags.filter((flag) => flag.file === file.path || flag.file === file.oldPath);
  return html`<section class="file-diff" id="file-${number}">
<h2><code>${file.oldPath !== file.path ? `${file.oldPath} → ` : ""}${file.path}</code> <small>${file.status}</small>${findings(iteration, file)}
${file.status !== "deleted" ? html` <a class="small" href="${links.fileAt(loopId, sha, file.path)}">file at ${shortSha(sha)}</a>` : ""}</h2>
${flags.map((flag) => html`<p class="warning">${flag.id} ${flag.kind}${flag.line ? ` at line ${flag.line}` : ""}: ${flag.detail}</p>`)}
${file.binary ? html`<p class="muted">Binary file.</p>` : ""}
<table class="diff"><tbody>${file.hunks.map(
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
