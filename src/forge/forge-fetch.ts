/**
 * One JSON request to a forge API with `fetch`, for the forges without a maintained client here
 * (Gitea and Forgejo): a 429, or a 403 whose rate-limit headers say the quota is spent, is waited out
 * (`retry-after` seconds or until `x-ratelimit-reset`) up to `maxWaitMs` and three times at most.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { defaultMaxRateLimitWaitMs, ForgeRequestError } from "./forge-client.ts";

export interface ForgeFetchOptions {
  method?: "GET" | "POST" | "PATCH" | "PUT";
  body?: unknown;
  headers: Record<string, string>;
  onWait?: (message: string) => void;
  maxWaitMs?: number;
  /** Answer with the body as text (a job log) instead of parsed JSON. */
  text?: boolean;
  /** Turns an error status into a message for the user. */
  describe: (status: number, detail: string) => string;
}

export async function forgeFetch<T>(url: string, options: ForgeFetchOptions): Promise<T> {
  const method = options.method ?? "GET";
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(url, {
      method,
      headers: { accept: "application/json", "content-type": "application/json", ...options.headers },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(60_000),
    }).catch((error: Error) => {
      throw new ForgeRequestError(0, options.describe(0, error.message));
    });
    if (response.ok && options.text) return (await response.text()) as T;
    if (response.ok) return (response.status === 204 ? undefined : await response.json()) as T;
    const waitMs = rateLimitWait(response);
    if (waitMs !== undefined && attempt < 3 && waitMs <= (options.maxWaitMs ?? defaultMaxRateLimitWaitMs)) {
      options.onWait?.(
        `rate limit on ${method} ${new URL(url).pathname}: waiting ${Math.ceil(waitMs / 1000)}s`,
      );
      await sleep(waitMs);
      continue;
    }
    const text = await response.text().catch(() => "");
    let detail = text.slice(0, 300);
    try {
      detail = String((JSON.parse(text) as { message?: unknown }).message ?? detail);
    } catch {}
    throw new ForgeRequestError(response.status, options.describe(response.status, detail));
  }
}

/** How long a rate-limited answer asks to wait, or undefined when the answer is not a rate limit. */
export function rateLimitWait(response: Response): number | undefined {
  const retryAfter = response.headers.get("retry-after");
  const remaining =
    response.headers.get("x-ratelimit-remaining") ?? response.headers.get("ratelimit-remaining");
  const limited =
    response.status === 429 || (response.status === 403 && (retryAfter !== null || remaining === "0"));
  if (!limited) return undefined;
  if (retryAfter !== null && /^\d+$/.test(retryAfter.trim())) return Number(retryAfter) * 1000;
  if (retryAfter !== null && !Number.isNaN(Date.parse(retryAfter)))
    return Math.max(0, Date.parse(retryAfter) - Date.now());
  const reset = response.headers.get("x-ratelimit-reset") ?? response.headers.get("ratelimit-reset");
  if (reset && /^\d+$/.test(reset)) return Math.max(0, Number(reset) * 1000 - Date.now()) + 1000;
  return 1000;
}
