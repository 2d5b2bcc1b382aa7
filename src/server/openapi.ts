/**
 * The OpenAPI 3.1 document of the API, generated from the route table (zod 4's `z.toJSONSchema`), so
 * what is documented is what is validated.
 */
import { z } from "zod";
import { errorSchema } from "./api-schemas.ts";
import { type ApiRoute, openApiPath } from "./route-table.ts";

export function openApiDocument(routes: ApiRoute[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method] = operation(route);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "loopwright",
      version,
      description:
        "The loopwright service's API. On loopback, reads are open and every action (POST, PUT, PATCH, DELETE) " +
        "carries the service secret (header x-loopwright-secret, see GET /api/session) from the same origin; " +
        "on any other address every request carries the token (Authorization: Bearer).",
    },
    paths,
    components: {
      securitySchemes: {
        token: { type: "http", scheme: "bearer" },
        secret: { type: "apiKey", in: "header", name: "x-loopwright-secret" },
      },
    },
  };
}

function operation(route: ApiRoute): Record<string, unknown> {
  const parameters = [
    ...fields(route.params, "path"),
    ...fields(route.query, "query"),
    ...(route.answer.kind === "stream"
      ? [{ name: "Last-Event-ID", in: "header", required: false, schema: { type: "string" } }]
      : []),
    ...(route.answer.kind === "text" && route.answer.ranged
      ? [
          {
            name: "Range",
            in: "header",
            required: false,
            schema: { type: "string" },
            description: "bytes=START-END",
          },
        ]
      : []),
  ];
  const error = {
    description: "what is wrong",
    content: { "application/json": { schema: schemaOf(errorSchema) } },
  };
  const responses: Record<string, unknown> = {};
  const answer = route.answer;
  if (answer.kind === "json") {
    responses[answer.status] = {
      description: answer.description,
      content: { "application/json": { schema: schemaOf(answer.schema) } },
    };
  } else if (answer.kind === "text") {
    const content = { [answer.mediaType]: { schema: { type: "string" } } };
    responses[answer.status] = { description: answer.description, content };
    if (answer.ranged) {
      responses[206] = { description: "the range asked for (Content-Range says which)", content };
      responses[416] = { ...error, description: "the range starts past the end" };
    }
  } else {
    responses[200] = {
      description: answer.description,
      content: { "text/event-stream": { schema: { type: "string" }, itemSchema: schemaOf(answer.schema) } },
    };
  }
  responses["4XX"] = error;
  return {
    summary: route.summary,
    operationId: `${route.method}${route.path.replace(/[/:.]+(\w)/g, (_, letter: string) => letter.toUpperCase())}`,
    // Reads: open on loopback, the token elsewhere; actions: the secret on loopback, the token elsewhere.
    security: route.method === "get" ? [{}, { token: [] }] : [{ secret: [] }, { token: [] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: { "application/json": { schema: schemaOf(route.body, "input") } },
          },
        }
      : {}),
    responses,
  };
}

/** The object schema's properties as OpenAPI parameters. */
function fields(schema: z.ZodType | undefined, where: "path" | "query"): Record<string, unknown>[] {
  if (!schema) return [];
  const json = schemaOf(schema, "input") as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === "path" || (json.required ?? []).includes(name),
    schema: property,
  }));
}

function schemaOf(schema: z.ZodType, io: "input" | "output" = "output"): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return rest;
}
