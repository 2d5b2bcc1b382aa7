/**
 * The service's HTTP face: the JSON API, the live event streams, the OpenAPI document and the login
 * form on one hono app, behind the access guard and the answer redaction; the dashboard mounts on it.
 */
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { secureHeaders } from "hono/secure-headers";
import { z } from "zod";
import type { AppContext } from "../app/app-context.ts";
import { createLoopCache } from "../app/loop-cache.ts";
import type { Redact } from "../core/redact.ts";
import { UsageError } from "../errors.ts";
import type { Store } from "../store/store.ts";
import { type AccessGuard, type AccessToken, createAccessGuard, type WebActor } from "./access-guard.ts";
import { apiRoutes } from "./api-routes.ts";
import { answerError } from "./error-answer.ts";
import { createEventFeed, type EventFeed, nudgingStore } from "./event-feed.ts";
import { guardRequests, mountLogin } from "./login-routes.ts";
import { openApiDocument } from "./openapi.ts";
import { createAnswerRedactor, redactAnswers } from "./redact-answers.ts";
import { type ApiRoute, defineRoute, registerRoutes } from "./route-table.ts";
import { sseRoutes } from "./sse-routes.ts";

export const defaultHost = "127.0.0.1";
export const defaultPort = 4477;
/** Largest request body: a spec is at most 1 MiB, a form a little more. */
const maximumBodyBytes = 2 * 1024 * 1024;

export interface ServerOptions {
  store: Store;
  /** loopwright's home folder (gate logs live under it). */
  home: string;
  /** The address the server binds (default 127.0.0.1). Any non-loopback address requires a token. */
  host?: string;
  /** The port, for the Host check; 0 (default) until `listen` learns the bound port. */
  port?: number;
  /** More Host names to answer (`serve --allow-host`: `name` at any port, or `name:port`). */
  allowHosts?: string[];
  /** The token every request must carry; default `LOOPWRIGHT_TOKEN` of `env`. A bare string is named `token`. */
  token?: string | AccessToken;
  /** The environment: its secrets are redacted from every answer; `LOOPWRIGHT_TOKEN`. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** The per-service secret actions carry (random when absent; tests set it). */
  secret?: string;
  /** Heartbeat period of the event streams in ms (default 15,000). */
  heartbeatMs?: number;
  /** Poll period of the live feed in ms (default 50). */
  pollMs?: number;
  /** Where unexpected failures are logged (default stderr). */
  log?: (line: string) => void;
  /** Mounts more routes (the dashboard) behind the same guard and redaction. */
  mount?: (app: Hono, dependencies: ServerDependencies) => void;
  /** Reported by the OpenAPI document. */
  version?: string;
}

/**
 * What the dashboard (and the service) use of the server: the same store, guard, feed and redaction.
 * Shaped so that `mount: mountDashboard` works as is (`secret`, `hosts`, `actorOf`, `env`).
 */
export interface ServerDependencies {
  /** The store; what is appended through it streams out at once (see `nudgingStore`). */
  store: Store;
  home: string;
  /** `guard.secret` goes in every form; `guard.check` is already applied to every request. */
  guard: AccessGuard;
  /** The per-service secret (form field `loopwright_secret` or header `x-loopwright-secret`). */
  secret: string;
  /** The bound host name (besides loopback names) this server answers to. */
  hosts: string[];
  /** Who acts through a request: `{via: "web", name: token name or "loopback"}`. */
  actorOf: (context: Context) => WebActor;
  /** The environment whose secrets are redacted from every answer. */
  env: NodeJS.ProcessEnv;
  feed: EventFeed;
  /** Applied to every text answer already; for text put in attributes or scripts by hand. */
  redact: Redact;
  /** The application layer's context (with a replay cache): pass it to src/app/ functions. */
  context: AppContext;
}

export interface LoopwrightServer extends ServerDependencies {
  app: Hono;
  /** The documented routes (the JSON API and the event streams). */
  routes: ApiRoute[];
  /** Ends every event stream and stops the live feed (the HTTP listener is closed by `listen`). */
  close(): void;
}

/**
 * Builds the app. Throws `UsageError` when `host` is not a loopback address and there is no token:
 * the API must never be open to the network.
 */
export function createServer(options: ServerOptions): LoopwrightServer {
  const env = options.env ?? process.env;
  const host = options.host ?? defaultHost;
  const tokenOption = options.token ?? (env.LOOPWRIGHT_TOKEN || undefined);
  const token = typeof tokenOption === "string" ? { name: "token", value: tokenOption } : tokenOption;
  if (token && token.value.length < 16)
    throw new UsageError("--token: use at least 16 characters (e.g. `openssl rand -hex 16`)");
  const guard = createAccessGuard({
    host,
    port: options.port ?? 0,
    token,
    secret: options.secret,
    allowHosts: options.allowHosts,
  });
  if (!guard.loopback && !token)
    throw new UsageError(
      `--host ${host} is not a loopback address: it needs a token (--token or LOOPWRIGHT_TOKEN), which every request must then carry`,
    );
  const redact = createAnswerRedactor(env);
  const feed = createEventFeed(options.store, { pollMs: options.pollMs });
  const closing = new AbortController();
  // The API's own actions (and a cancel run in-process) stream out at once.
  const context: AppContext = {
    store: nudgingStore(options.store, feed),
    home: options.home,
    cache: createLoopCache(),
  };
  const dependencies: ServerDependencies = {
    store: context.store,
    home: options.home,
    guard,
    secret: guard.secret,
    hosts: [host],
    actorOf: () => guard.actor(),
    env,
    feed,
    redact,
    context,
  };
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));

  const app = new Hono();
  app.onError(answerError(log));
  app.notFound((request) =>
    request.json({ error: `no such route: ${request.req.method} ${request.req.path}` }, 404),
  );
  app.use(redactAnswers(redact));
  // No framing by other sites (a framed form could be clicked through), no content sniffing.
  // Referrer-Policy same-origin, not the default no-referrer: under no-referrer a browser sends
  // `Origin: null` with the dashboard's own form posts, which the guard (rightly) refuses.
  app.use(secureHeaders({ crossOriginResourcePolicy: "same-origin", referrerPolicy: "same-origin" }));
  app.use(
    bodyLimit({
      maxSize: maximumBodyBytes,
      onError: (request) =>
        request.json({ error: `the body is larger than ${maximumBodyBytes} bytes`, field: "body" }, 413),
    }),
  );
  app.use(guardRequests(guard));
  mountLogin(app, guard);
  const routes: ApiRoute[] = [
    ...apiRoutes({ context, guard, redact }),
    ...sseRoutes({
      context,
      feed,
      redact,
      heartbeatMs: options.heartbeatMs ?? 15_000,
      closing: closing.signal,
    }),
  ];
  routes.push(
    defineRoute({
      method: "get",
      path: "/api/openapi.json",
      summary: "This document",
      answer: {
        kind: "json",
        status: 200,
        schema: z.record(z.string(), z.unknown()),
        description: "the OpenAPI 3.1 document",
      },
      handle: async () => document,
    }),
  );
  const document = openApiDocument(routes, options.version ?? "0.1.0");
  registerRoutes(app, routes);
  options.mount?.(app, dependencies);
  return {
    ...dependencies,
    app,
    routes,
    close() {
      closing.abort();
      feed.close();
    },
  };
}
