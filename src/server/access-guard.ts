/**
 * Who may talk to the service, and how an action is told apart from a forged one.
 *
 * - On a loopback address without a token, reading is open; every request must name the bound host
 *   (Host header: defeats DNS rebinding, where a hostile name resolves to 127.0.0.1), and every action
 *   (POST, PUT, PATCH, DELETE) must come from the same origin (Origin / Sec-Fetch-Site) and carry the
 *   per-service secret (header `x-loopwright-secret` or form field `loopwright_secret`), which only a page served
 *   by this service (or a client that read `GET /api/session`) knows.
 * - With a token (required on any other address), every request must carry it: `Authorization: Bearer`
 *   or the cookie set by the login form. A request authenticated by its cookie is also checked like an
 *   action on loopback (a browser sends cookies cross-site); a bearer header is not (a page cannot set it).
 *   The Host must name this service too (defence in depth: a rebound name gets no cookie, but an
 *   answer for a name the owner never gave is refused before the token is even looked at): the bound
 *   address, or on a wildcard address (0.0.0.0, ::) the machine's own addresses, its host name and
 *   loopback, all at the bound port.
 * - In both modes `allowHosts` adds names (`serve --allow-host`): a name a reverse proxy or DNS gives the
 *   service. `name` is accepted at any port (a proxy answers on 443), `name:port` at that port only.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { hostname, networkInterfaces } from "node:os";
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { UsageError } from "../errors.ts";

/** The header and the form field that carry the per-service secret. */
export const secretHeader = "x-loopwright-secret";
export const secretField = "loopwright_secret";
/** The cookie the login form sets in token mode. */
export const tokenCookie = "loopwright_token";

/** A token and the name recorded as the actor of what its bearer does. */
export interface AccessToken {
  name: string;
  value: string;
}

export interface AccessGuardOptions {
  host: string;
  /** The bound port; 0 until known (`setPort` once listening). */
  port: number;
  token?: AccessToken;
  /** The per-service secret; random (32 bytes) when absent. */
  secret?: string;
  /** More Host names to answer (`name` at any port, `name:port`); see the module comment. */
  allowHosts?: string[];
}

/** Who did an action from the web: recorded as `by` on the action's event. */
export interface WebActor {
  via: "web";
  name: string;
}

/** Why a request was refused: the HTTP status and the error said in the JSON body. */
export type Refusal = { status: 401 | 403; error: string };

export interface AccessGuard {
  readonly secret: string;
  readonly loopback: boolean;
  readonly tokenRequired: boolean;
  setPort(port: number): void;
  /** Host names (with port) a request may carry on loopback. */
  allowedHosts(): string[];
  /** Checks a request before any route runs; `formSecret` is read from the body by actions that post forms. */
  check(context: Context, formSecret?: string): Refusal | undefined;
  /** The actor of an action: the token's name, or `loopback`. */
  actor(): WebActor;
  /** True when `candidate` is the token (constant time). */
  isToken(candidate: string | undefined): boolean;
}

const loopbackHosts = new Set(["127.0.0.1", "::1", "localhost"]);

/** True for 127.0.0.0/8, ::1 and localhost. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "");
  return loopbackHosts.has(bare) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/** Methods that change something: checked for origin and secret. */
export function isAction(method: string): boolean {
  return method !== "GET" && method !== "HEAD" && method !== "OPTIONS";
}

export function createAccessGuard(options: AccessGuardOptions): AccessGuard {
  const secret = options.secret ?? randomBytes(32).toString("base64url");
  const loopback = isLoopbackHost(options.host);
  let port = options.port;
  const token = options.token;
  const ownNames = [...new Set([...boundNames(options.host), "127.0.0.1", "localhost", "[::1]"])];
  const extra = (options.allowHosts ?? []).map(parseAllowedHost);
  const allowedHosts = () => [
    ...ownNames.map((name) => `${name}:${port}`),
    ...extra.map((entry) => (entry.port === undefined ? entry.name : `${entry.name}:${entry.port}`)),
  ];
  /** The Host names one of ours (the URL's name is lowercased, IPv6 bracketed); its port ours once known. */
  const hostAllowed = (url: URL) => {
    const requestPort = Number(url.port || (url.protocol === "https:" ? 443 : 80));
    if (ownNames.includes(url.hostname) && (port === 0 || requestPort === port)) return true;
    return extra.some(
      (entry) => entry.name === url.hostname && (entry.port === undefined || entry.port === requestPort),
    );
  };
  const hostRefusal = (url: URL): Refusal | undefined => {
    if (hostAllowed(url)) return undefined;
    // Token mode: an unauthenticated caller is not told the machine's addresses.
    const answered = token ? "serve --allow-host adds a name" : `this service answers ${allowedHosts()[0]}`;
    return { status: 403, error: `unexpected Host ${url.host} (${answered})` };
  };
  const isToken = (candidate: string | undefined) =>
    token !== undefined && candidate !== undefined && sameText(candidate, token.value);
  const sameOrigin = (context: Context): Refusal | undefined => {
    const fetchSite = context.req.header("sec-fetch-site");
    if (fetchSite && fetchSite !== "same-origin" && fetchSite !== "none") {
      return { status: 403, error: `cross-site request refused (Sec-Fetch-Site: ${fetchSite})` };
    }
    const origin = context.req.header("origin");
    if (origin !== undefined) {
      const own = new URL(context.req.url).origin;
      if (origin !== own) return { status: 403, error: `cross-origin request refused (Origin ${origin})` };
    }
    return undefined;
  };
  const secretPresented = (context: Context, formSecret: string | undefined): Refusal | undefined => {
    const presented = context.req.header(secretHeader) ?? formSecret;
    if (presented === undefined)
      return { status: 403, error: `missing the service secret (header ${secretHeader})` };
    if (!sameText(presented, secret)) return { status: 403, error: "wrong service secret" };
    return undefined;
  };
  return {
    secret,
    loopback,
    tokenRequired: token !== undefined,
    setPort(bound) {
      port = bound;
    },
    allowedHosts,
    isToken,
    actor: () => ({ via: "web", name: token?.name ?? "loopback" }),
    check(context, formSecret) {
      const action = isAction(context.req.method);
      const refusedHost = hostRefusal(new URL(context.req.url));
      if (refusedHost) return refusedHost;
      if (token) {
        const bearer = /^Bearer\s+(.+)$/i.exec(context.req.header("authorization") ?? "")?.[1]?.trim();
        if (bearer !== undefined) {
          return isToken(bearer) ? undefined : { status: 401, error: "wrong token" };
        }
        const cookie = getCookie(context, tokenCookie);
        if (cookie === undefined)
          return { status: 401, error: "a token is required (Authorization: Bearer)" };
        if (!isToken(cookie)) return { status: 401, error: "wrong token" };
        if (!action) return undefined;
        return sameOrigin(context) ?? secretPresented(context, formSecret);
      }
      if (!action) return undefined;
      return sameOrigin(context) ?? secretPresented(context, formSecret);
    },
  };
}

/**
 * The names a client may put in Host for a socket bound to `host`: the address itself (IPv6 bracketed),
 * or for a wildcard address every address of the machine's interfaces and its host name.
 */
function boundNames(host: string): string[] {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  const bracketed = (address: string) => (address.includes(":") ? `[${address}]` : address);
  if (bare !== "0.0.0.0" && bare !== "::") return [bracketed(bare)];
  const addresses = Object.values(networkInterfaces())
    .flat()
    .filter((entry) => entry !== undefined)
    .filter((entry) => bare === "::" || entry.family === "IPv4")
    .map((entry) => bracketed(entry.address.replace(/%.*$/, "").toLowerCase()));
  return [...addresses, hostname().toLowerCase()];
}

/** `name` or `name:port` (`[v6]:port`), as given to --allow-host; throws UsageError when malformed. */
export function parseAllowedHost(text: string): { name: string; port?: number } {
  const trimmed = text.trim();
  let url: URL;
  try {
    url = new URL(`http://${trimmed}`);
  } catch {
    throw new UsageError(`--allow-host: '${text}' is not a host name or host:port`);
  }
  if (!trimmed || url.pathname !== "/" || url.search || url.hash || url.username || url.password)
    throw new UsageError(`--allow-host: '${text}' is not a host name or host:port`);
  // The URL drops a port that is the scheme's default (`:80`); one written out still counts.
  const written = /:(\d+)$/.exec(trimmed)?.[1];
  return { name: url.hostname, port: written === undefined ? undefined : Number(written) };
}

/** Compares two texts in constant time (over their digests, so lengths leak nothing either). */
function sameText(left: string, right: string): boolean {
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(left), digest(right));
}
