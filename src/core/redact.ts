/**
 * Redaction of secrets from command output before it reaches a log, a tail, a brief or the timeline.
 * A secret is the value of an environment variable whose name looks secret.
 */

/**
 * Replaces every known secret in a text; returns the text unchanged when there are none. A redactor
 * made by `createRedactor` also says which secrets it knows, so that a stream cut in the middle of a
 * line (see `createLineRedactor`) and a change screened for secrets (see `findSecretValues`) can use them.
 */
export type Redact = ((text: string) => string) & { readonly secrets?: readonly KnownSecret[] };

/** A secret value loopwright holds and the name of the variable it came from. */
export interface KnownSecret {
  name: string;
  value: string;
}

/** Secrets shorter than this are left alone: they would match ordinary words and numbers. */
export const minimumSecretLength = 8;

/** Names containing one of these words (any case) hold secrets; AUTH does not count inside AUTHOR. */
const secretNamePattern = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE|AUTH(?!OR)/i;

/** A partial line longer than this is emitted without waiting for its end. */
const lineBufferLimit = 64 * 1024;

/** True when a variable's name says its value is a secret (KEY, TOKEN, SECRET, PASSWORD, ...). */
export function looksSecret(name: string): boolean {
  return secretNamePattern.test(name);
}

/**
 * A redactor for the secrets in `env` (default process.env): each value of at least 8 characters of a
 * variable whose name looks secret is replaced by `[redacted:NAME]` everywhere, longest values first.
 * A value spanning several lines (a PEM key) is also redacted line by line, so that a line-buffered
 * stream still hides it.
 */
export function createRedactor(env: NodeJS.ProcessEnv | Record<string, string> = process.env): Redact {
  const nameOfSecret = new Map<string, string>();
  const remember = (value: string, name: string) => {
    if (value.length >= minimumSecretLength && !nameOfSecret.has(value)) nameOfSecret.set(value, name);
  };
  for (const [name, value] of Object.entries(env)) {
    if (!value || !looksSecret(name)) continue;
    remember(value, name);
    if (value.includes("\n")) for (const line of value.split(/\r?\n/)) remember(line.trim(), name);
  }
  if (nameOfSecret.size === 0) return Object.assign((text: string) => text, { secrets: [] });
  const values = [...nameOfSecret.keys()].sort((left, right) => right.length - left.length);
  const pattern = new RegExp(values.map(escapeRegularExpression).join("|"), "g");
  const secrets = values.map((value) => ({ name: nameOfSecret.get(value) ?? "", value }));
  return Object.assign(
    (text: string) => text.replace(pattern, (secret) => `[redacted:${nameOfSecret.get(secret)}]`),
    { secrets },
  );
}

/**
 * A redactor for the secrets of `env` (default process.env) as they appear raw, inside a JSON string and
 * HTML-escaped, for text about to leave (an HTTP answer, a CLI's output), so that a secret holding `"`, `\` or `&` is still caught after the answer was serialized. One pass over
 * the text: every form of every secret is one alternative of one pattern, longest first, and each is
 * replaced by `[redacted:NAME]` (the variable's name, never which form leaked).
 */
export function createAnswerRedactor(env: NodeJS.ProcessEnv | Record<string, string> = process.env): Redact {
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

/** Redacts a stream that arrives in chunks: see `createLineRedactor`. */
export interface LineRedactor {
  /** Takes the next chunk; returns the redacted complete lines it finished (possibly ""). */
  push(chunk: string): string;
  /** Returns the redacted rest (the last line without its newline); call once at the end. */
  flush(): string;
}

/**
 * Buffers a stream by line so that a secret split across two chunks is still redacted: only complete
 * lines are redacted and emitted. A partial line longer than 64 KiB is emitted anyway, after redacting,
 * except its end: the last characters that could be the start of a secret wait for the next chunk.
 */
export function createLineRedactor(redact: Redact): LineRedactor {
  let pending = "";
  return {
    push(chunk) {
      pending += chunk;
      const end = pending.lastIndexOf("\n") + 1;
      if (end === 0 && pending.length <= lineBufferLimit) return "";
      const cut = end === 0 ? safeCut(pending, redact.secrets ?? []) : end;
      const complete = pending.slice(0, cut);
      pending = pending.slice(cut);
      return redact(complete);
    },
    flush() {
      const rest = pending;
      pending = "";
      return redact(rest);
    },
  };
}

/**
 * Where a partial line can be cut without splitting a secret: before the last (longest secret - 1)
 * characters, which could begin a secret whose rest has not arrived, and before any whole secret that
 * would straddle that point.
 */
function safeCut(text: string, secrets: readonly KnownSecret[]): number {
  const longest = secrets.reduce((length, secret) => Math.max(length, secret.value.length), 0);
  if (longest === 0) return text.length;
  let cut = Math.max(0, text.length - (longest - 1));
  // Moving the cut back can make another (overlapping) secret straddle it: repeat until none does.
  for (let previous = -1; previous !== cut; ) {
    previous = cut;
    for (const { value } of secrets) {
      const index = text.indexOf(value, Math.max(0, cut - value.length + 1));
      if (index !== -1 && index < cut) cut = index;
    }
  }
  return cut;
}

function escapeRegularExpression(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}
