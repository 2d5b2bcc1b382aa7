/** The page shell every dashboard page shares: head, navigation, stylesheet and the live script. */
import { html } from "hono/html";

/** Anything `html` renders: its own results, strings (escaped), numbers, arrays of these. */
export type Markup = ReturnType<typeof html>;

export interface PageOptions {
  title: string;
  /** What the live script listens to: `/api/events` (every loop) or `/api/loops/:id/events`. */
  liveEvents?: string;
  /** The fragment the live script fetches and swaps into `#live` when an event arrives. */
  liveFragment?: string;
  /** The least time between two refetches, in ms (default 500). */
  liveGap?: number;
}

/** A whole HTML page around `body`. The live script is optional: every page reads fine without it. */
export function page(options: PageOptions, body: Markup): Markup {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · loopwright</title>
<link rel="stylesheet" href="/assets/dashboard.css">
<script src="/assets/dashboard.js" defer></script>
</head>
<body${options.liveEvents ? html` data-live-events="${options.liveEvents}" data-live-fragment="${options.liveFragment}" data-live-gap="${options.liveGap ?? 500}"` : ""}>
<header class="top"><a class="brand" href="/">loopwright</a>
<nav><a href="/">Loops</a> <a href="/loops/new">New loop</a> <span id="live-state" class="live-state" hidden></span></nav>
</header>
<main>
${body}
</main>
</body>
</html>`;
}

/** A small status badge: `status-<name>` picks its colour. */
export function badge(name: string, text: string = name): Markup {
  return html`<span class="badge status-${name}">${text}</span>`;
}
