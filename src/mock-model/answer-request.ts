import { anthropicError, renderAnthropic } from "./anthropic-render.ts";
import { parseAnthropicRequest } from "./anthropic-request.ts";
import { renderChat } from "./chat-render.ts";
import { parseChatRequest } from "./chat-request.ts";
import { type HttpAnswer, jsonAnswer } from "./http-answer.ts";
import { isRecord, type ModelRequest, type Protocol } from "./model-request.ts";
import { openAiError } from "./openai-error.ts";
import { buildReply, type Reply, textReply } from "./reply.ts";
import type { LoggedRequest } from "./request-log.ts";
import { renderResponses } from "./responses-render.ts";
import { parseResponsesRequest } from "./responses-request.ts";
import type { Script } from "./script.ts";
import { type ErrorTally, selectTurn } from "./select-turn.ts";
import { sideRequestAnswer } from "./side-request.ts";
import { findWorkingDirectory } from "./working-directory.ts";

/** An incoming HTTP request, body already read and decoded. */
export interface IncomingRequest {
  method: string;
  /** Path with query. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** The plan for one request: what to log, what to send (none for a hang), and how long to wait first. */
export interface AnswerPlan {
  entry: LoggedRequest;
  /** Undefined: never answer (the request hangs until the client or the server gives up). */
  answer?: HttpAnswer;
  delayMs: number;
}

/** The header a client (or a test) may send to state its working directory for `{{cwd}}`. */
export const workingDirectoryHeader = "x-loopwright-cwd";

/**
 * Decides the answer to one request from the script, statelessly except for `errors` (see
 * `ErrorTally`). Never throws for a bad request: it plans a 400/404 answer instead.
 */
export function answerRequest(script: Script, errors: ErrorTally, request: IncomingRequest): AnswerPlan {
  const pathname = request.path.split("?")[0].replace(/\/+$/, "") || "/";
  const entry: LoggedRequest = {
    time: new Date().toISOString(),
    method: request.method,
    path: request.path,
    outcome: "probe",
    status: 200,
    notes: [],
  };
  const done = (answer: HttpAnswer, delayMs = 0): AnswerPlan => {
    entry.status = answer.status;
    return { entry, answer, delayMs };
  };

  if (pathname === "/" && (request.method === "GET" || request.method === "HEAD"))
    return done({ status: 200, headers: { "content-type": "text/plain" }, body: "loopwright mock-model\n" });
  if (request.method === "GET" && pathname.endsWith("/models")) return done(jsonAnswer(modelList(script)));

  const protocol = protocolOf(request.method, pathname);
  const body = parseBody(request.body);
  if (request.body) entry.body = body.ok ? body.value : request.body;
  if (request.method === "POST" && pathname.endsWith("/messages/count_tokens"))
    return done(jsonAnswer({ input_tokens: Math.ceil(request.body.length / 4) }));
  if (!protocol) {
    entry.outcome = "rejected";
    return done(openAiError(404, `mock-model: no such endpoint: ${request.method} ${pathname}`));
  }
  entry.protocol = protocol;
  const fail = (status: number, message: string, retryAfter?: number) =>
    protocol === "anthropic"
      ? anthropicError(status, message, retryAfter)
      : openAiError(status, message, retryAfter);
  if (!body.ok) {
    entry.outcome = "rejected";
    return done(fail(400, "mock-model: the request body is not a JSON object"));
  }

  const parsed = parsers[protocol](body.value);
  const side = sideRequestAnswer(protocol, body.value);
  if (side !== undefined) {
    Object.assign(entry, { model: parsed.model, stream: parsed.stream, outcome: "side_request" });
    return done(renderers[protocol](textReply(side, request.body.length), parsed.model, 0, parsed.stream));
  }
  const header = request.headers[workingDirectoryHeader];
  const cwd = (Array.isArray(header) ? header[0] : header) || findWorkingDirectory(parsed.texts);
  Object.assign(entry, { model: parsed.model, stream: parsed.stream, cwd });
  const selection = selectTurn(script, parsed, errors);
  entry.turn = selection.index;
  if (selection.type !== "no_conversation") entry.conversation = selection.conversation;
  const render = (reply: Reply) => renderers[protocol](reply, parsed.model, selection.index, parsed.stream);

  switch (selection.type) {
    case "error": {
      const { status, message, retryAfter } = selection.error;
      entry.outcome = "error";
      return done(
        fail(status, message ?? `mock-model: scripted error ${status}`, retryAfter),
        selection.turn.delay ?? 0,
      );
    }
    case "turn": {
      const { turn } = selection;
      if (turn.hang) {
        entry.outcome = "hang";
        entry.status = null;
        return { entry, delayMs: turn.delay ?? 0 };
      }
      const reply = buildReply(turn, selection.index, parsed, cwd, request.body.length);
      entry.outcome = "answered";
      entry.notes.push(...reply.notes);
      return done(render(reply), turn.delay ?? 0);
    }
    case "script_ended": {
      const text =
        `mock-model: the script has no turn ${selection.index + 1} in conversation "${selection.conversation}" ` +
        `(it has ${selection.turnCount}); stopping here.`;
      entry.outcome = "script_ended";
      entry.notes.push(text);
      return done(render(textReply(text, request.body.length)));
    }
    case "no_conversation": {
      const text = `mock-model: no conversation of the script matches this request (markers: ${selection.markers.map((marker) => JSON.stringify(marker)).join(", ")}).`;
      entry.outcome = "no_conversation";
      entry.notes.push(text);
      return done(render(textReply(text, request.body.length)));
    }
  }
}

const parsers: Record<Protocol, (body: Record<string, unknown>) => ModelRequest> = {
  anthropic: parseAnthropicRequest,
  responses: parseResponsesRequest,
  chat: parseChatRequest,
};

const renderers: Record<
  Protocol,
  (reply: Reply, model: string, turnIndex: number, stream: boolean) => HttpAnswer
> = {
  anthropic: renderAnthropic,
  responses: renderResponses,
  chat: renderChat,
};

function protocolOf(method: string, pathname: string): Protocol | undefined {
  if (method !== "POST") return undefined;
  if (pathname.endsWith("/messages")) return "anthropic";
  if (pathname.endsWith("/responses")) return "responses";
  if (pathname.endsWith("/chat/completions")) return "chat";
  return undefined;
}

function parseBody(text: string): { ok: true; value: Record<string, unknown> } | { ok: false } {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? { ok: true, value } : { ok: false };
  } catch {
    return { ok: false };
  }
}

/** `GET /v1/models` in a shape both OpenAI (`object`, `owned_by`) and Anthropic (`type`, `display_name`) clients read. */
function modelList(script: Script) {
  const created = Math.floor(Date.now() / 1000);
  const data = script.models.map((id) => ({
    id,
    object: "model",
    type: "model",
    display_name: id,
    created,
    created_at: new Date(created * 1000).toISOString(),
    owned_by: "loopwright-mock-model",
  }));
  return {
    object: "list",
    data,
    has_more: false,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
  };
}
