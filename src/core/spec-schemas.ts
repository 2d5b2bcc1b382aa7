/**
 * The spec's zod schemas (spec.ts), as the parser (spec-file.ts) reaches them: only for a spec that
 * plain-spec.ts leaves to zod, or for a scripted engine's script file. Here spec.ts is imported with the
 * parser; the parser's bundle (scripts/bundle-spec-parser.ts) has this module `require` spec.ts at the
 * first call instead, so that a plain spec's parse loads neither zod nor the schemas.
 */
import * as schemas from "./spec.ts";

let used = false;

/** spec.ts's exports. */
export function specSchemas(): typeof schemas {
  used = true;
  return schemas;
}

/** Whether this process asked for the schemas (zod) yet: the parser's code cache holds zod's path then. */
export function specSchemasUsed(): boolean {
  return used;
}
