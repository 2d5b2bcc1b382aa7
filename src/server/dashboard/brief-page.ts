/** The brief of one iteration exactly as the maker was sent it. */
import { html } from "hono/html";
import type { IterationState } from "../../loop/state.ts";
import { links } from "./links.ts";
import type { LoopView } from "./loop-view.ts";
import { type Markup, page } from "./page-layout.ts";

export function briefPage(view: LoopView, iteration: IterationState): Markup {
  return page(
    { title: `${view.loop.name}: brief ${iteration.number}` },
    html`<p><a href="${links.iteration(view.loop.id, iteration.number)}">← ${view.loop.name}, iteration ${iteration.number}</a></p>
<h1>Brief of iteration ${iteration.number}</h1>
<pre class="brief">${iteration.brief}</pre>`,
  );
}
