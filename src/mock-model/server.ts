import { createHash } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliDecompressSync, gunzipSync, inflateSync, zstdDecompressSync } from "node:zlib";
import { SpecError, UsageError } from "../errors.ts";
import { appendFileSync } from "../files/node-fs.ts";
import { answerRequest } from "./answer-request.ts";
import { appendLogLine, type LoggedRequest } from "./request-log.ts";
import { parseScript, type Script, type ScriptInput } from "./script.ts";
import { loadScriptFile } from "./script-file.ts";
import type { ErrorTally } from "./select-turn.ts";

export interface MockModelOptions {
  /** A script as written (validated here), or the path of a YAML/JSON script file. */
  script: ScriptInput | string;
  /** TCP port; default 0 (any free port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** A file every request is appended to as one JSON line. */
  log?: string;
}

/** A running mock-model server. */
export interface MockModel {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:43121`; clients add `/v1/...`. */
  url: string;
  port: number;
  /** Every request so far, in arrival order (live: entries are added as requests arrive). */
  requests: LoggedRequest[];
  /** The validated script being served. */
  script: Script;
  /** Stops listening, ends hung and delayed requests, closes every connection. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts the scripted model server speaking the Anthropic Messages, OpenAI Responses and Chat
 * Completions protocols (see `answerRequest`). Throws `SpecError` for an invalid script and
 * `UsageError` when the port cannot be bound or the log file cannot be written.
 */
export async function startMockModel(options: MockModelOptions): Promise<MockModel> {
  const script =
    typeof options.script === "string" ? await loadScriptFile(options.script) : validated(options.script);
  if (options.log) {
    try {
      appendFileSync(options.log, "");
    } catch (error) {
      throw new UsageError(`cannot write the request log ${options.log}: ${(error as Error).message}`);
    }
  }
  const requests: LoggedRequest[] = [];
  const errors: ErrorTally = new Map();
  const pending = new Set<() => void>();

  const server = createServer(async (incoming, response) => {
    const body = await readBody(incoming);
    if (body === undefined) return void response.writeHead(400).end();
    const plan = answerRequest(script, errors, {
      method: incoming.method ?? "GET",
      path: incoming.url ?? "/",
      headers: incoming.headers,
      body,
    });
    const credential = credentialOf(incoming.headers);
    if (credential) plan.entry.credential = credential;
    requests.push(plan.entry);
    appendLogLine(options.log, plan.entry);
    if (!(await waitFor(plan.delayMs, response, plan.entry, pending))) return;
    if (!plan.answer) return hold(response, plan.entry, pending);
    response.writeHead(plan.answer.status, plan.answer.headers).end(plan.answer.body);
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        new UsageError(
          `mock-model cannot listen on ${options.host ?? "127.0.0.1"}:${options.port ?? 0}: ${error.code ?? error.message}`,
        ),
      ),
    );
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(":") ? `[${address}]` : address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    requests,
    script,
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const cancel of [...pending]) cancel();
        pending.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** The short SHA-256 of the credential header a request carries (see `LoggedRequest.credential`). */
export function credentialFingerprint(value: string): string {
  return createHash("sha256").update(value).digest("hex").slice(0, 12);
}

function credentialOf(headers: IncomingHttpHeaders): string | undefined {
  const authorization = headers.authorization;
  if (typeof authorization === "string" && authorization)
    return credentialFingerprint(authorization.replace(/^Bearer\s+/i, ""));
  const key = headers["x-api-key"];
  return typeof key === "string" && key ? credentialFingerprint(key) : undefined;
}

function validated(input: ScriptInput): Script {
  const parsed = parseScript(input);
  if (!parsed.ok) throw new SpecError(parsed.problems);
  return parsed.script;
}

/**
 * Waits `milliseconds` before an answer; resolves false (and marks the entry aborted) when the client
 * leaves or the server closes first.
 */
function waitFor(
  milliseconds: number,
  response: ServerResponse,
  entry: LoggedRequest,
  pending: Set<() => void>,
): Promise<boolean> {
  if (response.destroyed) entry.aborted = true;
  if (milliseconds === 0 || response.destroyed) return Promise.resolve(!response.destroyed);
  return new Promise((resolve) => {
    const finish = (waited: boolean) => {
      clearTimeout(timer);
      pending.delete(cancel);
      response.off("close", onClose);
      if (!waited) entry.aborted = true;
      resolve(waited);
    };
    const cancel = () => {
      finish(false);
      response.destroy();
    };
    const onClose = () => finish(false);
    const timer = setTimeout(() => finish(true), milliseconds);
    pending.add(cancel);
    response.on("close", onClose);
  });
}

/** Keeps a response open without answering until the client leaves or the server closes. */
function hold(response: ServerResponse, entry: LoggedRequest, pending: Set<() => void>) {
  const cancel = () => {
    pending.delete(cancel);
    entry.aborted = true;
    response.destroy();
  };
  pending.add(cancel);
  response.on("close", () => {
    if (pending.delete(cancel)) entry.aborted = true;
  });
}

/** The request body as text, decoded from gzip/deflate/br/zstd when the client compressed it; undefined if unreadable. */
async function readBody(incoming: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const encoding = String(incoming.headers["content-encoding"] ?? "identity").toLowerCase();
    const decode: Record<string, (buffer: Buffer) => Buffer> = {
      gzip: gunzipSync,
      deflate: inflateSync,
      br: brotliDecompressSync,
      zstd: zstdDecompressSync,
    };
    return (decode[encoding]?.(raw) ?? raw).toString("utf8");
  } catch {
    return undefined;
  }
}
