/** Validating a request body or query against its schema, naming the first wrong field. */
import type { z } from "zod";
import { FieldError } from "../errors.ts";

/**
 * The parsed request, or a `FieldError` naming the first problem's field (`budget.maxIterations`,
 * `addGates.0.run`; `body` for the request as a whole). Nothing has happened yet when it throws.
 */
export function parseRequest<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  // An unknown key is reported on the object that holds it: name the key itself.
  const path = issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0]] : issue.path;
  throw new FieldError(path.map(String).join(".") || "body", issue.message);
}
