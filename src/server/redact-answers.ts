/**
 * Secrets from the environment never leave in an answer: every text body (JSON, Markdown, HTML, plain
 * text) is redacted on its way out, and so is every server-sent event (see `sse-routes.ts`).
 *
 * A route that already holds a redacted body (a page rendered and redacted once, then kept: see
 * `dashboard/page-cache.ts`) answers with `redactedAnswer`, which the middleware lets through without
 * decoding and re-encoding it. The only way to make such bytes is `redactedBytes`, which redacts.
 */
import type { MiddlewareHandler } from "hono";
import { createRedactor, type Redact } from "../core/redact.ts";

/**
 * A redactor for the secrets of `env` as they appear raw, inside a JSON string and HTML-escaped, so
 * that a secret holding `"`, `\` or `&` is still caught after the answer was serialized. One pass over
 * the text: every form of every secret is one alternative of one pattern, longest first, and each is
 * replaced by `[redacted:NAME]` (the variable's name, never which form leaked).
 */
export function createAnswerRedactor(env: NodeJS.ProcessEnv | Record<string, string>): Redact {
  const plain = createRedactor(env);
  const secrets = plain.secrets ?? [];
  if (secrets.length === 0) return plain;
  const nameOfForm = new Map<string, string>();
  for (const { name, value } of secrets)
    for (const form of [value, JSON.stringify(value).slice(1, -1), escapeHtml(value)])
      if (!nameOfForm.has(form)) nameOfForm.set(form, name);
  const forms = [...nameOfForm.keys()].sort((left, right) => right.length - left.length);
  const pattern = new RegExp(forms.map(escapeRegularExpression).join("|"), "g");
  return Object.assign(
    (text: string) => text.replace(pattern, (form) => `[redacted:${nameOfForm.get(form)}]`),
    { secrets },
  );
}

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

function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

function escapeRegularExpression(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
