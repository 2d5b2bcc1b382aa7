/**
 * Facts about one iteration that the replayed state does not keep but its events do: the maker's and
 * verifier's turn records (the maker's final message, durations, cost, tokens), rejected verdicts,
 * replanning turns, and the wall time of each phase. Pure over the loop's events.
 */
import type { EventPayloads, LoopEvent, TurnUsage } from "../../core/events.ts";

export interface PhaseTimes {
  makerMs: number;
  gatesMs: number;
  verifierMs: number;
}

export interface IterationFacts {
  maker?: EventPayloads["maker_ended"];
  verifier?: EventPayloads["verifier_ended"];
  rejectedVerdicts: EventPayloads["verdict_rejected"][];
  replans: EventPayloads["replan_ended"][];
  costUsd: number;
  tokens: { input: number; output: number };
  startedAt?: string;
  endedAt?: string;
  times: PhaseTimes;
}

/** Collects the facts of iteration `number` from the loop's events (in order). */
export function iterationFacts(events: readonly LoopEvent[], number: number): IterationFacts {
  const facts: IterationFacts = {
    rejectedVerdicts: [],
    replans: [],
    costUsd: 0,
    tokens: { input: 0, output: 0 },
    times: { makerMs: 0, gatesMs: 0, verifierMs: 0 },
  };
  let firstGate: number | undefined;
  let lastGate: number | undefined;
  const count = (cost: number | undefined, usage: TurnUsage | undefined) => {
    if (typeof cost === "number" && cost > 0) facts.costUsd += cost;
    if (usage) {
      facts.tokens.input += usage.inputTokens;
      facts.tokens.output += usage.outputTokens;
    }
  };
  for (const event of events) {
    if (!("iteration" in event.data) || event.data.iteration !== number) continue;
    switch (event.type) {
      case "iteration_started":
        facts.startedAt = event.at;
        break;
      case "iteration_ended":
        facts.endedAt = event.at;
        break;
      case "maker_ended":
        facts.maker = event.data;
        facts.times.makerMs += event.data.durationMs;
        count(event.data.costUsd, event.data.usage);
        break;
      case "verifier_ended":
        facts.verifier = event.data;
        facts.times.verifierMs += event.data.durationMs;
        count(event.data.costUsd, event.data.usage);
        break;
      case "verdict_rejected":
        facts.rejectedVerdicts.push(event.data);
        break;
      case "review_ended":
        count(event.data.costUsd, event.data.usage);
        break;
      case "replan_ended":
        facts.replans.push(event.data);
        count(event.data.costUsd, event.data.usage);
        break;
      case "gate_started":
        if (event.data.phase !== "baseline") firstGate ??= Date.parse(event.at);
        break;
      case "gate_ended":
        if (event.data.result.phase !== "baseline") lastGate = Date.parse(event.at);
        break;
    }
  }
  if (firstGate !== undefined && lastGate !== undefined)
    facts.times.gatesMs = Math.max(0, lastGate - firstGate);
  return facts;
}

const factsOfTimelines = new WeakMap<readonly LoopEvent[], Map<number, IterationFacts>>();

/**
 * The facts of iteration `number`, from `iterationFactsByNumber` over `events` computed once per events
 * array (a replay's events are immutable: the charts and every iteration of one page share one pass).
 */
export function factsOf(events: readonly LoopEvent[], number: number): IterationFacts {
  let byNumber = factsOfTimelines.get(events);
  if (!byNumber) {
    byNumber = iterationFactsByNumber(events);
    factsOfTimelines.set(events, byNumber);
  }
  return byNumber.get(number) ?? iterationFacts([], number);
}

/**
 * `iterationFacts` of every iteration in one pass over the events (the charts need them all: calling
 * `iterationFacts` once per iteration reads the whole timeline each time, quadratic in a long loop).
 */
export function iterationFactsByNumber(events: readonly LoopEvent[]): Map<number, IterationFacts> {
  const byIteration = new Map<number, LoopEvent[]>();
  for (const event of events) {
    if (!("iteration" in event.data) || typeof event.data.iteration !== "number") continue;
    const list = byIteration.get(event.data.iteration);
    if (list) list.push(event);
    else byIteration.set(event.data.iteration, [event]);
  }
  const facts = new Map<number, IterationFacts>();
  for (const [number, list] of byIteration) facts.set(number, iterationFacts(list, number));
  return facts;
}
