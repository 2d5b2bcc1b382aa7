/**
 * Secrets from the environment never leave in an answer: every text body (JSON, Markdown, HTML, plain
 * text) is redacted on its way out, and so is every server-sent event (see `sse-routes.ts`).
 *
 * A route that already holds a redacted body (a page rendered and redacted once, then kept: see
 * `dashboard/page-cache.ts`) answers with `redactedAnswer`, which the middleware lets through without
 * decoding and re-encoding it. The only way to make such bytes is `redactedBytes`, which redacts.
 */
import type { MiddlewareHandler } from "hono";
import type { Redact } from "../core/redact.ts";

/** The answers' redactor (raw, JSON-escaped and HTML-escaped forms of each secret): see core/redact.ts. */
export { createAnswerRedactor } from "../core/redact.ts";

declare const redactedBrand: unique symbol;
/** UTF-8 bytes of a text that went through a redactor (made by `redactedBytes` only). */
export type RedactedBytes = Uint8Array & { readonly [redactedBrand]: true };

/** Answers whose body is `RedactedBytes`: the middleware does not scan them again. */
const alreadyRedacted = new WeakSet<Response>();

/** Redacts `text` and encodes it, once; the result can be kept and answered many times. */
export function redactedBytes(redact: Redact, text: string): RedactedBytes {
  return Buffer.from(redact(text), "utf8") as unknown as RedactedBytes;
}

/** An answer with a body redacted already (`content-type` given by the caller). */
export function redactedAnswer(
  body: RedactedBytes,
  init: { status?: number; headers: Record<string, string> },
): Response {
  const response = new Response(body, init);
  alreadyRedacted.add(response);
  return response;
}

const textTypes = /^(application\/(json|problem\+json)|text\/(?!event-stream))/i;

/** Middleware: rewrites every text answer through `redact`; streams (SSE) redact their own events. */
export function redactAnswers(redact: Redact): MiddlewareHandler {
  return async (context, next) => {
    await next();
    if ((redact.secrets ?? []).length === 0) return;
    const response = context.res;
    if (alreadyRedacted.has(response)) return;
    if (!textTypes.test(response.headers.get("content-type") ?? "") || response.body === null) return;
    const text = await response.text();
    const headers = new Headers(response.headers);
    headers.delete("content-length");
    context.res = undefined;
    context.res = new Response(redact(text), { status: response.status, headers });
  };
}
