/**
 * Secrets from the environment never leave in an answer: every text body (JSON, Markdown, HTML, plain
 * text) is redacted on its way out, and so is every server-sent event (see `sse-routes.ts`).
 */
import type { MiddlewareHandler } from "hono";
import { createRedactor, type Redact } from "../core/redact.ts";

/**
 * A redactor for the secrets of `env` as they appear raw, inside a JSON string and HTML-escaped, so
 * that a secret holding `"`, `\` or `&` is still caught after the answer was serialized.
 */
export function createAnswerRedactor(env: NodeJS.ProcessEnv | Record<string, string>): Redact {
  const variants: Record<string, string> = {};
  const plain = createRedactor(env);
  for (const { name, value } of plain.secrets ?? []) {
    const forms = new Set([value, JSON.stringify(value).slice(1, -1), escapeHtml(value)]);
    let index = 0;
    for (const form of forms) variants[`${name}${index++ === 0 ? "" : `#${index}`}`] = form;
  }
  const redact = createRedactor(variants);
  // `[redacted:NAME#2]` would tell which form leaked: name the variable only.
  return Object.assign(
    (text: string) => redact(text).replace(/\[redacted:([^\]#]+)#\d+\]/g, "[redacted:$1]"),
    {
      secrets: plain.secrets,
    },
  );
}

const textTypes = /^(application\/(json|problem\+json)|text\/(?!event-stream))/i;

/** Middleware: rewrites every text answer through `redact`; streams (SSE) redact their own events. */
export function redactAnswers(redact: Redact): MiddlewareHandler {
  return async (context, next) => {
    await next();
    if ((redact.secrets ?? []).length === 0) return;
    const response = context.res;
    if (!textTypes.test(response.headers.get("content-type") ?? "") || response.body === null) return;
    const text = await response.text();
    const headers = new Headers(response.headers);
    headers.delete("content-length");
    context.res = undefined;
    context.res = new Response(redact(text), { status: response.status, headers });
  };
}

function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}
