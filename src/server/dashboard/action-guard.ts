/**
 * What every owner action from a page must show before it runs: the per-service secret the page embeds
 * (a cross-site form cannot know it), an `Origin`, when the browser sends one, that is this server's
 * own, and a `Host` this server answers to (against DNS rebinding). Returns the refusal, or undefined.
 */
import { timingSafeEqual } from "node:crypto";

export interface ActionRequest {
  host: string | undefined;
  origin: string | undefined;
  secret: string | undefined;
}

/** Host names a loopback server answers to. */
const loopbackHosts = new Set(["127.0.0.1", "localhost", "[::1]"]);

export function refuseAction(
  request: ActionRequest,
  expected: { secret: string; hosts?: string[] },
): string | undefined {
  const hostName = request.host?.replace(/:\d+$/, "").toLowerCase();
  const allowed = new Set([...loopbackHosts, ...(expected.hosts ?? []).map((host) => host.toLowerCase())]);
  if (!hostName || !allowed.has(hostName))
    return `refused: Host ${request.host ?? "(none)"} is not this server`;
  if (request.origin !== undefined && request.origin !== "null") {
    let originHost: string;
    try {
      originHost = new URL(request.origin).host.toLowerCase();
    } catch {
      return "refused: the Origin header is not a URL";
    }
    if (originHost !== request.host?.toLowerCase())
      return `refused: a request from ${request.origin} cannot act here`;
  } else if (request.origin === "null") {
    return "refused: a request from an opaque origin cannot act here";
  }
  if (!request.secret || !sameText(request.secret, expected.secret))
    return "refused: the page's secret is missing or wrong (reload the page)";
  return undefined;
}

function sameText(left: string, right: string): boolean {
  const a = Buffer.from(left);
  const b = Buffer.from(right);
  return a.length === b.length && timingSafeEqual(a, b);
}
