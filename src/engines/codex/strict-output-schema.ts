/**
 * Codex sends `--output-schema` to the model as a *strict* Structured Outputs format, and OpenAI accepts
 * only a subset of JSON Schema there: every object closed (`additionalProperties: false`), every
 * property listed in `required`, no `default`, no string length limits. This rewrites our schemas into
 * that subset: an optional property becomes required but nullable, and `withoutNulls` turns the answer
 * back into the shape the loop validates (a null there means "left out").
 */

type JsonObject = Record<string, unknown>;

/** Keywords strict mode refuses (the loop validates them itself on the answer). */
const unsupported = new Set(["$schema", "default", "minLength", "maxLength"]);

/** The schema rewritten for OpenAI's strict mode. Pure; the input is not modified. */
export function strictOutputSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strictOutputSchema);
  if (!isObject(schema)) return schema;
  const result: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (unsupported.has(key)) continue;
    if (key === "properties" && isObject(value)) {
      const required = new Set(Array.isArray(schema.required) ? schema.required : []);
      result.properties = Object.fromEntries(
        Object.entries(value).map(([name, property]) => {
          const strict = strictOutputSchema(property);
          return [name, required.has(name) ? strict : { anyOf: [strict, { type: "null" }] }];
        }),
      );
      result.required = Object.keys(value);
      result.additionalProperties = false;
    } else if (key === "oneOf") {
      result.anyOf = strictOutputSchema(value);
    } else if (key !== "required" && key !== "additionalProperties") {
      result[key] = strictOutputSchema(value);
    }
  }
  if (result.type === "object" && !("properties" in result)) {
    result.properties = {};
    result.required = [];
    result.additionalProperties = false;
  }
  return result;
}

/** The value with every null-valued object property dropped, recursively (see the module comment). */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, entry]) => entry !== null)
      .map(([key, entry]) => [key, withoutNulls(entry)]),
  );
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
