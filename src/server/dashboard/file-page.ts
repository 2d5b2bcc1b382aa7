/**
 * A file as it is at one of the loop's commits, read through git (never the working tree), with line
 * anchors, so that a verifier's evidence `file:line` opens where it points. Only the loop's own commits
 * (its base, each iteration's start and commit) can be read, and only paths inside the repository.
 */
import { html } from "hono/html";
import { gitResult } from "../../git/git.ts";
import type { LoopState } from "../../loop/state.ts";
import { shortSha } from "./format.ts";
import type { LoopView } from "./loop-view.ts";
import { type Markup, page } from "./page-layout.ts";

/** Largest file shown. */
const maximumFileBytes = 2 * 1024 * 1024;

/** The commits of a loop whose files can be opened. */
export function loopCommits(state: LoopState): Set<string> {
  const commits = new Set<string>();
  if (state.baseSha) commits.add(state.baseSha);
  for (const iteration of state.iterations) {
    commits.add(iteration.startSha);
    if (iteration.commit) commits.add(iteration.commit.sha);
    for (const review of iteration.reviews) commits.add(review.sha).add(review.fromSha);
  }
  for (const result of Object.values(state.baseline)) commits.add(result.sha);
  return commits;
}

/** A repository-relative path without `..`, a leading `/`, or control characters; undefined otherwise. */
export function safeRepositoryPath(path: string | undefined): string | undefined {
  if (!path) return undefined;
  const cleaned = path.replace(/^\.\//, "");
  if (
    cleaned === "" ||
    cleaned.startsWith("/") ||
    [...cleaned].some((character) => character.charCodeAt(0) < 32)
  )
    return undefined;
  if (cleaned.split("/").some((part) => part === ".." || part === "")) return undefined;
  return cleaned;
}

export type FileAtCommit =
  | { ok: true; text: string }
  | { ok: false; status: 404 | 413 | 415; problem: string };

export async function readFileAtCommit(repoRoot: string, sha: string, path: string): Promise<FileAtCommit> {
  const object = `${sha}:${path}`;
  const type = await gitResult(["cat-file", "-t", object], repoRoot);
  if (type.code !== 0 || type.stdout.trim() !== "blob")
    return { ok: false, status: 404, problem: `no file ${path} at ${shortSha(sha)}` };
  const size = Number((await gitResult(["cat-file", "-s", object], repoRoot)).stdout.trim());
  if (!(size <= maximumFileBytes))
    return { ok: false, status: 413, problem: `${path} is ${size} bytes: too large to show` };
  const content = await gitResult(["cat-file", "blob", object], repoRoot);
  if (content.code !== 0)
    return { ok: false, status: 404, problem: `cannot read ${path} at ${shortSha(sha)}` };
  if (content.stdout.includes("\0")) return { ok: false, status: 415, problem: `${path} is a binary file` };
  return { ok: true, text: content.stdout };
}

export function filePage(view: LoopView, sha: string, path: string, text: string): Markup {
  const lines = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
  return page(
    { title: `${path} at ${shortSha(sha)}` },
    html`<p><a href="/loops/${encodeURIComponent(view.loop.id)}">← ${view.loop.name}</a></p>
<h1><code>${path}</code> <small>at <code>${shortSha(sha)}</code></small></h1>
<pre class="log source">${lines.map(
      (
        line,
        index,
      ) => html`<span class="line" id="L${index + 1}"><a class="number" href="#L${index + 1}">${index + 1}</a>${line}
</span>`,
    )}</pre>`,
  );
}
