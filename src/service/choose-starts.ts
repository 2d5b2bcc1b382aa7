/** Which waiting loops may start now under the caps: a pure decision, tested without a store. */
import type { Caps } from "./caps.ts";

/** A loop that waits to be started, with the providers it would call. */
export interface Candidate {
  loopId: string;
  providers: string[];
}

/**
 * The candidates to start now, taken in the given order (recovered loops first, then the queue in
 * submission order): each starts when the total and each of its providers' counts, with the `active`
 * loops and those chosen before it, stay within the caps. A candidate held back by a provider's cap does
 * not hold back later ones that call other providers; once the total is reached nothing more starts.
 */
export function chooseStarts(
  candidates: Candidate[],
  active: { providers: string[] }[],
  caps: Caps,
): Candidate[] {
  let total = active.length;
  const perProvider = new Map<string, number>();
  for (const loop of active)
    for (const provider of loop.providers) perProvider.set(provider, (perProvider.get(provider) ?? 0) + 1);
  const chosen: Candidate[] = [];
  for (const candidate of candidates) {
    if (caps.maxActive > 0 && total >= caps.maxActive) break;
    const blocked = candidate.providers.some((provider) => {
      const cap = caps.maxPerProvider[provider];
      return cap !== undefined && (perProvider.get(provider) ?? 0) >= cap;
    });
    if (blocked) continue;
    chosen.push(candidate);
    total += 1;
    for (const provider of candidate.providers)
      perProvider.set(provider, (perProvider.get(provider) ?? 0) + 1);
  }
  return chosen;
}
