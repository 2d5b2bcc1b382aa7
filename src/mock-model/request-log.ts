import { appendFileSync } from "../files/node-fs.ts";
import type { Protocol } from "./model-request.ts";

/** What the server did with a request. */
export type RequestOutcome =
  /** Answered with the turn's content. */
  | "answered"
  /** Answered with the turn's scripted HTTP error. */
  | "error"
  /** Held open without an answer (`hang`). */
  | "hang"
  /** Past the end of its conversation: answered with a text saying the script ran out. */
  | "script_ended"
  /** No conversation's marker matched: answered with a text saying so. */
  | "no_conversation"
  /** A client's side request (Claude Code's session title), answered without the script. */
  | "side_request"
  /** Not a model call: `HEAD /`, `GET /v1/models`, token counting. */
  | "probe"
  /** Unreadable body (400) or unknown path (404). */
  | "rejected";

/** One request as the server saw and answered it; entries are appended in arrival order. */
export interface LoggedRequest {
  /** ISO time of arrival. */
  time: string;
  method: string;
  /** The path with its query, e.g. `/v1/messages?beta=true`. */
  path: string;
  protocol?: Protocol;
  model?: string;
  stream?: boolean;
  conversation?: string;
  /** The turn index picked: the number of assistant turns already in the request. */
  turn?: number;
  /** The client's working directory as found in the request (or its X-Loopwright-Cwd header). */
  cwd?: string;
  outcome: RequestOutcome;
  /** The HTTP status sent, or null for a request never answered (hang). */
  status: number | null;
  /** Things the script author should know: unknown tool names, `{{cwd}}` unresolved, the script ran out. */
  notes: string[];
  /**
   * Which credential the client sent (its Authorization or x-api-key header): the first 12 hex digits of
   * its SHA-256, never the value, so a test can tell which key reached the server without logging it.
   */
  credential?: string;
  /** The parsed JSON body (the raw text when it is not JSON). */
  body?: unknown;
  /** True when the client went away (or the server closed) before the answer was sent. Set in memory
   * only: the log file's line is written when the request arrives, so a hang shows while it lasts. */
  aborted?: boolean;
}

/**
 * Appends one entry as a JSON line to `file` (no-op without a file). The server checks at start that
 * the file can be written, so a later failure (disk full) drops the line rather than the answer.
 */
export function appendLogLine(file: string | undefined, entry: LoggedRequest): void {
  if (!file) return;
  try {
    appendFileSync(file, `${JSON.stringify(entry)}\n`);
  } catch {
    // The in-memory log still has the entry.
  }
}
