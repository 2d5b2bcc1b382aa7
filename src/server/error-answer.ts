/**
 * Errors as answers: a mistake of the request is a 4xx with `{error, field?}`, never a stack trace; an
 * unexpected failure is a 500 that says only that (the detail goes to the service's log).
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { LoopBusyError, LoopNotFoundError, SpecError, StoreError, UsageError } from "../errors.ts";

/** The status and JSON body an error is answered with. */
export function describeError(error: unknown): { status: number; body: Record<string, unknown> } {
  if (error instanceof HTTPException) return { status: error.status, body: { error: error.message } };
  const field = (error as { field?: unknown }).field;
  const withField = (status: number, message: string) => ({
    status,
    body: typeof field === "string" ? { error: message, field } : { error: message },
  });
  if (error instanceof LoopNotFoundError) return withField(404, error.message);
  if (error instanceof LoopBusyError) return withField(409, error.message);
  if (error instanceof StoreError) return withField(503, error.message);
  if (error instanceof SpecError)
    return { status: 400, body: { error: error.message, field: "spec", problems: error.problems } };
  if (error instanceof UsageError) return withField(400, error.message);
  return { status: 500, body: { error: "internal error (see the service's log)" } };
}

/** hono's `onError`: answers with `describeError`, logging what is not the request's fault. */
export function answerError(log: (line: string) => void) {
  return (error: Error, context: Context) => {
    const { status, body } = describeError(error);
    if (status >= 500) log(`${context.req.method} ${context.req.path}: ${error.stack ?? error.message}`);
    return context.json(body, status as 400);
  };
}
