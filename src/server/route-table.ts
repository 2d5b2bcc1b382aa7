/**
 * The API's routes as data: method, path, the schemas of parameters, query, body and answer, and the
 * handler. Routes are registered on the hono app and documented in the OpenAPI document from this one
 * table, so a route cannot exist without its documented schemas.
 */
import type { Context, Hono } from "hono";
import { z } from "zod";
import { FieldError } from "../errors.ts";
import { secretField } from "./access-guard.ts";

export type Method = "get" | "post" | "put" | "patch" | "delete";

/** How a route answers: JSON validated by `schema`, text of a media type, or an event stream. */
export type Answer =
  | { kind: "json"; status: number; schema: z.ZodType; description: string }
  | { kind: "text"; status: number; mediaType: string; description: string; ranged?: boolean }
  | { kind: "stream"; schema: z.ZodType; description: string };

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  context: Context;
}

export interface ApiRoute<P = unknown, Q = unknown, B = unknown> {
  method: Method;
  /** A hono path: `/api/loops/:id`. */
  path: string;
  summary: string;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  answer: Answer;
  handle(input: RouteInput<P, Q, B>): Promise<unknown>;
}

/** Declares a route with its types inferred from its schemas. */
export function defineRoute<P = Record<string, never>, Q = Record<string, never>, B = undefined>(
  route: ApiRoute<P, Q, B>,
): ApiRoute {
  return route as unknown as ApiRoute;
}

/** Registers every route: parses parameters, query and body (400 naming the field), then answers. */
export function registerRoutes(app: Hono, routes: ApiRoute[]): void {
  for (const route of routes) {
    app.on(route.method.toUpperCase(), route.path, async (context) => {
      const params = parse(route.params, context.req.param(), "");
      const query = parse(route.query, context.req.query(), "");
      const body = route.body ? parse(route.body, await readBody(context), "") : undefined;
      const result = await route.handle({ params, query, body, context });
      if (result instanceof Response) return result;
      const answer = route.answer;
      if (answer.kind === "json") return context.json(result as object, answer.status as 200);
      if (answer.kind === "stream") throw new Error(`${route.path}: a stream route must answer a Response`);
      return context.body(String(result), answer.status as 200, {
        "content-type": `${answer.mediaType}; charset=utf-8`,
      });
    });
  }
}

/** Parses with `schema`, or throws a `FieldError` naming the first field at fault. */
function parse<T>(schema: z.ZodType<T> | undefined, value: unknown, prefix: string): T {
  if (!schema) return {} as T;
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = [...(prefix ? [prefix] : []), ...issue.path.map(String)];
  const unknownKeys = issue.code === "unrecognized_keys" ? issue.keys : [];
  const field = [...path, ...unknownKeys.slice(0, 1)].join(".");
  throw new FieldError(field || "body", unknownKeys.length > 0 ? "unknown field" : issue.message);
}

/** The JSON body (or a form's fields); an empty body reads as `{}`. */
async function readBody(context: Context): Promise<unknown> {
  const type = context.req.header("content-type") ?? "";
  if (/multipart\/form-data|application\/x-www-form-urlencoded/i.test(type)) {
    const form = await context.req.parseBody();
    const { [secretField]: _secret, ...fields } = form;
    return fields;
  }
  const text = await context.req.text();
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new FieldError("body", "not JSON");
  }
}

/** `/api/loops/:id` → `/api/loops/{id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_]+)/g, "{$1}");
}

export { z };
