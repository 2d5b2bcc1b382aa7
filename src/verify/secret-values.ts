/**
 * Where known secret values appear in a text, and the text with them replaced: the pure half of
 * keeping secrets out of a change (see `scrubSecretsFromChange`) and out of a push.
 */
import type { KnownSecret } from "../core/redact.ts";

/** One place a secret value appears: 1-based line, and the name of the variable it came from. */
export interface SecretPlace {
  line: number;
  name: string;
}

/**
 * Every line of `text` holding a known secret value, in order; a line holding two secrets is listed
 * once per secret. Works on any string, including bytes read as latin1 (then give the secrets' UTF-8
 * bytes as latin1 too, see `asLatin1`).
 */
export function findSecretValues(text: string, secrets: readonly KnownSecret[]): SecretPlace[] {
  const places: SecretPlace[] = [];
  const seen = new Set<string>();
  for (const { name, value } of secrets) {
    for (let index = text.indexOf(value); index !== -1; index = text.indexOf(value, index + value.length)) {
      const line = lineAt(text, index);
      const key = `${line}:${name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      places.push({ line, name });
    }
  }
  return places.sort((left, right) => left.line - right.line || left.name.localeCompare(right.name));
}

/** `text` with each secret value replaced by `[redacted:NAME]`, longest values first. */
export function replaceSecretValues(text: string, secrets: readonly KnownSecret[]): string {
  const longestFirst = [...secrets].sort((left, right) => right.value.length - left.value.length);
  return longestFirst.reduce(
    (result, { name, value }) => result.replaceAll(value, `[redacted:${name}]`),
    text,
  );
}

/** The secrets with their values as the latin1 reading of their UTF-8 bytes, to search raw file bytes. */
export function asLatin1(secrets: readonly KnownSecret[]): KnownSecret[] {
  return secrets.map(({ name, value }) => ({ name, value: Buffer.from(value, "utf8").toString("latin1") }));
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (
    let position = text.indexOf("\n");
    position !== -1 && position < index;
    position = text.indexOf("\n", position + 1)
  )
    line++;
  return line;
}
