/**
 * The Octokit every GitHub call goes through: its retry plugin (server errors) and throttling plugin
 * (403/429 rate limits waited out up to `maxWaitMs` and three times, each wait reported).
 */
import { retry } from "@octokit/plugin-retry";
import { throttling } from "@octokit/plugin-throttling";
import { Octokit } from "@octokit/rest";
import { defaultMaxRateLimitWaitMs, type ForgeClientOptions } from "./forge-client.ts";

const ThrottledOctokit = Octokit.plugin(retry, throttling);

export function githubOctokit(options: ForgeClientOptions) {
  const maxWaitMs = options.maxWaitMs ?? defaultMaxRateLimitWaitMs;
  const waitOut =
    (kind: string) =>
    (retryAfter: number, request: { method: string; url: string }, _octokit: unknown, retryCount: number) => {
      if (retryCount >= 3 || retryAfter * 1000 > maxWaitMs) return false;
      options.onWait?.(
        `GitHub ${kind} rate limit on ${request.method} ${request.url}: waiting ${retryAfter}s`,
      );
      return true;
    };
  return new ThrottledOctokit({
    auth: options.token,
    baseUrl: options.target.api,
    userAgent: "loopwright",
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    retry: { doNotRetry: [400, 401, 403, 404, 422, 429] },
    throttle: { onRateLimit: waitOut("primary"), onSecondaryRateLimit: waitOut("secondary") },
  });
}
