/** Polling for something a child process does, for tests that cannot be told when it happened. */
import { setTimeout as delay } from "node:timers/promises";

/**
 * Resolves once `condition` holds, checking every 20 ms; rejects with `gave up waiting for <what>`
 * after `timeoutMs` (a safety net, not a timed assertion).
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await delay(20);
  }
}
