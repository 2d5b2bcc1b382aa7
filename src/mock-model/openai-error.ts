import { type HttpAnswer, jsonAnswer, retryAfterHeader } from "./http-answer.ts";

/** An OpenAI error answer (Responses and Chat Completions): `{error: {message, type, param, code}}`. */
export function openAiError(status: number, message: string, retryAfter?: number): HttpAnswer {
  const [type, code] =
    status === 429
      ? ["requests", "rate_limit_exceeded"]
      : status >= 500
        ? ["server_error", "server_error"]
        : status === 401
          ? ["invalid_request_error", "invalid_api_key"]
          : ["invalid_request_error", null];
  return jsonAnswer({ error: { message, type, param: null, code } }, status, retryAfterHeader(retryAfter));
}
