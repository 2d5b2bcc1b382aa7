/**
 * The dashboard's static assets (its stylesheet and its live script), read once from the `assets`
 * folder next to this file and served with a content type and a short cache lifetime.
 */

import type { Context } from "hono";
import { readFileSync } from "../../files/node-fs.ts";

const types: Record<string, string> = {
  "dashboard.css": "text/css; charset=utf-8",
  "dashboard.js": "text/javascript; charset=utf-8",
};

const contents = new Map<string, string>();

function load(name: string): string {
  let content = contents.get(name);
  if (content === undefined) {
    content = readFileSync(new URL(`./assets/${name}`, import.meta.url), "utf8");
    contents.set(name, content);
  }
  return content;
}

export function serveAsset(context: Context, name: string): Response {
  const type = types[name];
  if (!type) return context.text("not found", 404);
  return context.body(load(name), 200, { "content-type": type, "cache-control": "max-age=60" });
}
