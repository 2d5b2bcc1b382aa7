/** One iteration alone, in full: what the loop's page shows of its latest iterations. */
import { html } from "hono/html";
import type { IterationState, LoopState } from "../../loop/state.ts";
import { iterationView } from "./iteration-view.ts";
import { links } from "./links.ts";
import type { LoopView } from "./loop-view.ts";
import { type Markup, page } from "./page-layout.ts";

export function iterationPage(view: LoopView, state: LoopState, iteration: IterationState): Markup {
  const previous = state.iterations.find((item) => item.number === iteration.number - 1);
  const next = state.iterations.find((item) => item.number === iteration.number + 1);
  const loopId = view.loop.id;
  return page(
    { title: `${view.loop.name}: iteration ${iteration.number}` },
    html`<p><a href="${links.loop(loopId)}">← ${view.loop.name}</a>
${previous ? html` · <a href="${links.iterationPage(loopId, previous.number)}">iteration ${previous.number}</a>` : ""}
${next ? html` · <a href="${links.iterationPage(loopId, next.number)}">iteration ${next.number}</a>` : ""}</p>
${iterationView(view, state, iteration)}`,
  );
}
