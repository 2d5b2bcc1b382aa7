/**
 * The two status lines `hook prompt` puts before every answer (through additionalContext): where the
 * work stands, and what the definition of done will ask and when. Past a threshold they tell the agent
 * to suggest closing the work. Pure.
 */
import type { HookGate } from "../hook-spec.ts";
import type { HookLimits, OpenWork } from "../work/deferred-work.ts";

export interface StatusFacts {
  repository: string;
  work?: OpenWork;
  /** Files changed since the work opened (undefined without open work). */
  changedFiles?: number;
  /** Why the review is due, when it is. */
  due?: string;
  gates: HookGate[];
  limits: HookLimits;
  /** The command that closes the work, e.g. `/repo/.loopwright/hook close`. */
  closeCommand: string;
  reviewerAgent: string;
}

export function statusLines(facts: StatusFacts): string {
  const { work, limits } = facts;
  const commands = facts.gates.filter((gate) => gate.run !== undefined);
  const everyStop = commands.filter((gate) => gate.timing === "every-stop").map((gate) => gate.id);
  const onClose = commands.filter((gate) => gate.timing === "on-close").map((gate) => gate.id);
  const gatePlan = [
    everyStop.length ? `gates ${everyStop.join(", ")} at every stop` : "",
    onClose.length ? `${onClose.join(", ")} when the work closes` : "",
  ]
    .filter(Boolean)
    .join(", ");
  const plan = `${gatePlan || "no gate"}, then a review by the ${facts.reviewerAgent} subagent when the work closes`;
  if (!work)
    return [
      `loopwright: repository ${facts.repository}; no open work (the first edit opens it, review deferred).`,
      `Definition of done: ${plan}.`,
    ].join("\n");

  const files = facts.changedFiles ?? 0;
  const first = `loopwright: repository ${facts.repository}; ${files} file${files === 1 ? "" : "s"} changed since the work opened ${work.turns} turn${work.turns === 1 ? "" : "s"} ago${facts.due ? "" : " (review deferred)"}.`;
  if (facts.due)
    return [
      first,
      `Review due (${facts.due}): before you finish, ${gatePlan || "no gate"} must pass and the ${facts.reviewerAgent} subagent must find no [CRITICAL] in the current code.`,
    ].join("\n");
  const left = Math.max(0, limits.deferTurns - work.turns);
  if (work.turns >= limits.suggestCloseTurns)
    return [
      first,
      `The work has been open ${work.turns} turns: suggest to the user to close it now (run \`${facts.closeCommand}\`, then finish: the on-close gates and the review run). The review falls due anyway in ${left} turn${left === 1 ? "" : "s"}.`,
    ].join("\n");
  return [
    first,
    `Definition of done: ${plan}; the review falls due in ${left} turn${left === 1 ? "" : "s"}, at a new session, or ${limits.deferMs / 3600_000} h after the work opened.`,
  ].join("\n");
}
