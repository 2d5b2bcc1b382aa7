/**
 * Gitbeaker's requester with one change: a rate-limited answer (429, or 403 with rate-limit headers) is
 * waited out for as long as GitLab asks (`retry-after`, `ratelimit-reset`), up to `maxWaitMs` and three
 * times, each wait reported; gitbeaker's own handler retries on a fixed growing delay and says nothing.
 * Options handling (token header, query, body) stays gitbeaker's.
 */
import { setTimeout as sleep } from "node:timers/promises";
import {
  createRequesterFn,
  type FormattedResponse,
  GitbeakerRequestError,
  type RequestOptions,
} from "@gitbeaker/requester-utils";
import { defaultMaxRateLimitWaitMs } from "./forge-client.ts";
import { rateLimitWait } from "./forge-fetch.ts";

export function gitlabRequester(options: { onWait?: (message: string) => void; maxWaitMs?: number }) {
  const maxWaitMs = options.maxWaitMs ?? defaultMaxRateLimitWaitMs;
  return createRequesterFn(
    async (_service, request: RequestOptions) => request,
    async (endpoint: string, request?: Record<string, unknown>): Promise<FormattedResponse> => {
      const {
        prefixUrl,
        searchParams,
        method,
        rateLimiters: _limiters,
        asStream: _stream,
        agent: _agent,
        ...init
      } = (request ?? {}) as Record<string, unknown>;
      const base = String(prefixUrl ?? "");
      const url = new URL(endpoint, base.endsWith("/") ? base : `${base}/`);
      url.search = String(searchParams ?? "");
      for (let attempt = 0; ; attempt++) {
        const fetchRequest = new Request(url, { ...(init as RequestInit), method: String(method ?? "GET") });
        const response = await fetch(fetchRequest);
        if (response.ok) {
          const text = response.status === 204 ? "" : await response.text();
          // A job's trace is text/plain; everything else GitLab answers is JSON.
          const json = (response.headers.get("content-type") ?? "application/json").includes("json");
          return {
            body: text === "" ? null : json ? (JSON.parse(text) as FormattedResponse["body"]) : text,
            headers: Object.fromEntries(response.headers.entries()),
            status: response.status,
          };
        }
        const waitMs = rateLimitWait(response);
        if (waitMs !== undefined && attempt < 3 && waitMs <= maxWaitMs) {
          options.onWait?.(
            `GitLab rate limit on ${fetchRequest.method} ${url.pathname}: waiting ${Math.ceil(waitMs / 1000)}s`,
          );
          await sleep(waitMs);
          continue;
        }
        const text = await response.text().catch(() => "");
        let description = text.slice(0, 300);
        try {
          const parsed = JSON.parse(text) as { error?: unknown; message?: unknown };
          const detail = parsed.error ?? parsed.message ?? description;
          description = typeof detail === "string" ? detail : JSON.stringify(detail);
        } catch {}
        throw new GitbeakerRequestError(description, {
          cause: { description, request: fetchRequest, response },
        });
      }
    },
  );
}
