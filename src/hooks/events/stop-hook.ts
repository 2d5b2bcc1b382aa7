/**
 * `hook stop`: may Claude stop? The gates marked `every-stop` run at every stop, whatever opened the
 * work or if nothing did (a Bash edit, a tree already red); a gate already green on exactly this
 * content (tree, HEAD, base, command: see gate-pass-key.ts) is not run again. Changes with no open work
 * open it here. While the work is deferred that is all. When the review debt is due (closing asked, turn
 * limit, new session, hours), the `on-close` gates run too, and the reviewer's verdict on the current
 * code must be a PASS. Every refusal counts towards the circuit breaker; the counter and the work are
 * updated under the state lock, so concurrent stops leave exact counts.
 */
import type { HookContext } from "../hook-context.ts";
import type { HookGateResult } from "../hook-gates.ts";
import { blockStop, type HookOutput, passOn, tellUser } from "../hook-io.ts";
import { acceptanceCriteria, gatesToRun, loadHookSpec } from "../hook-spec.ts";
import { type ChangeSnapshot, headAndSnapshot } from "../review/changed-files.ts";
import type { StoredVerdict } from "../review/verdict-file.ts";
import { type HookState, readHookState, updateHookState } from "../state/hook-state.ts";
import {
  breakerMessage,
  forgedVerdictMessage,
  gateFailureReason,
  lessonRequest,
  reviewFailedReason,
  reviewMissingReason,
  workClosedMessage,
} from "../templates/hook-messages.ts";
import { openWork, reviewDue, seenBySession } from "../work/deferred-work.ts";
import { gatePassKey } from "../work/gate-pass-key.ts";

/** What the checks concluded, before the circuit breaker has its say. */
type Conclusion =
  | { kind: "pass"; closeWork: boolean; message?: string }
  /** `reason` is built late: whether it asks for a lesson depends on the state under the lock. */
  | { kind: "block"; cause?: string; reason: (askLesson: boolean) => string; userMessage?: string };

export async function stopHook(context: HookContext): Promise<HookOutput> {
  const { layout, input } = context;
  const stored = readHookState(layout);
  const work = stored.work ? seenBySession(stored.work, input.session_id) : undefined;
  const due = work
    ? reviewDue(work, { sessionId: input.session_id, now: context.now, limits: context.limits })
    : undefined;
  const spec = await loadHookSpec(layout);
  const { head, snapshot } = await headAndSnapshot(layout.root, work?.base, context.status);
  const graded = { head, base: snapshot.base, tree: snapshot.all };
  const gates = gatesToRun(spec, due !== undefined);
  const keys = new Map(gates.map((gate) => [gate.id, gatePassKey(gate.run ?? "", graded)]));
  const stale = gates.filter((gate) => stored.gatePasses[gate.id] !== keys.get(gate.id));
  const results =
    stale.length > 0 ? await (await import("../hook-gates.ts")).runHookGates(layout, stale) : [];
  const failures = results.filter((result) => !result.passed && result.gate.required);
  const gateIds = gates.map((gate) => gate.id);

  let conclusion: Conclusion;
  if (failures.length > 0) {
    const example = `Run \`${failures[0].gate.run}\` and make it pass before you finish.`;
    conclusion = {
      kind: "block",
      cause: `gate:${failures.map((failure) => failure.gate.id).join(",")}`,
      reason: (ask) => gateFailureReason(failures, ask ? lessonRequest(example) : undefined),
    };
  } else if (snapshot.files.length === 0) {
    conclusion = { kind: "pass", closeWork: true, message: optionalFailures(results) };
  } else if (due === undefined) {
    conclusion = { kind: "pass", closeWork: false, message: optionalFailures(results) };
  } else if (snapshot.codeFiles.length === 0) {
    conclusion = { kind: "pass", closeWork: true, message: workClosedMessage(gateIds, undefined) };
  } else {
    conclusion = await reviewConclusion(context, snapshot, due, gateIds, acceptanceCriteria(spec));
  }
  return settle(context, snapshot, results, keys, conclusion);
}

async function reviewConclusion(
  context: HookContext,
  snapshot: ChangeSnapshot,
  due: string,
  gateIds: string[],
  criteria: string[],
): Promise<Conclusion> {
  const { layout, naming } = context;
  // Loaded only when the review is due: most stops never get here.
  const [{ readVerdict, reviewStanding }, { writeReviewRequest }] = await Promise.all([
    import("../review/verdict-file.ts"),
    import("../review/review-request.ts"),
  ]);
  const state = readHookState(layout);
  const standing = reviewStanding(readVerdict(layout, state.verdictSha256), snapshot.code);
  if (standing.status === "pass")
    return { kind: "pass", closeWork: true, message: workClosedMessage(gateIds, standing.verdict) };
  await writeReviewRequest(layout, snapshot, criteria);
  if (standing.status === "fail") {
    const verdict: StoredVerdict = standing.verdict;
    const flagged = (verdict.criticals[0] ?? "").replace(/^\[CRITICAL\]\s*(\S+:\d+\s+)?/, "");
    const example = `Before you finish, check your change for this kind of problem: ${flagged}`;
    return {
      kind: "block",
      cause: "review",
      reason: (ask) =>
        reviewFailedReason(verdict, layout.report, naming, ask ? lessonRequest(example) : undefined),
    };
  }
  const text = reviewMissingReason({
    due,
    stale: standing.status === "stale",
    ...(standing.status === "missing" && standing.ignored ? { ignored: standing.ignored } : {}),
    ...(state.invalidReport ? { invalidReport: state.invalidReport.why } : {}),
    codeFiles: snapshot.codeFiles,
    naming,
    requestPath: layout.reviewRequest,
  });
  const forged = standing.status === "missing" && standing.ignored !== undefined;
  return {
    kind: "block",
    reason: () => text,
    ...(forged ? { userMessage: forgedVerdictMessage(layout.verdict, standing.ignored ?? "") } : {}),
  };
}

/** Records the outcome under the lock and turns it into the hook's answer (the breaker decides here). */
async function settle(
  context: HookContext,
  snapshot: ChangeSnapshot,
  results: HookGateResult[],
  keys: Map<string, string>,
  conclusion: Conclusion,
): Promise<HookOutput> {
  const { input, limits, layout, now } = context;
  let output: HookOutput = passOn();
  await updateHookState(layout, (current): HookState => {
    const gatePasses = { ...current.gatePasses };
    for (const result of results) {
      const key = keys.get(result.gate.id);
      if (result.passed && key) gatePasses[result.gate.id] = key;
      else delete gatePasses[result.gate.id];
    }
    // Changes that no Write opened (Bash edits, a tree already changed) open the work here: their review is owed too.
    const work = current.work
      ? seenBySession(current.work, input.session_id)
      : snapshot.files.length > 0
        ? openWork(input.session_id ?? "", snapshot.base, now)
        : undefined;
    const totals = { ...current.totals, stops: current.totals.stops + 1 };
    const next: HookState = { ...current, gatePasses, totals, ...(work ? { work } : {}) };
    if (conclusion.kind === "pass") {
      output = conclusion.message ? tellUser(conclusion.message) : passOn();
      if (!conclusion.closeWork) return { ...next, blocks: 0 };
      const { work: _closed, ...rest } = next;
      return { ...rest, blocks: 0, lastClosed: { at: now.toISOString(), codeStamp: snapshot.code } };
    }
    const asked = work?.lessonsAsked ?? [];
    const askLesson = conclusion.cause !== undefined && !asked.includes(conclusion.cause);
    const reason = conclusion.reason(askLesson);
    if (current.blocks >= limits.maxBlocks) {
      output = tellUser(breakerMessage(current.blocks, reason, layout.off));
      return { ...next, blocks: 0, totals: { ...totals, breakerTrips: totals.breakerTrips + 1 } };
    }
    output = conclusion.userMessage
      ? { ...blockStop(reason), systemMessage: conclusion.userMessage }
      : blockStop(reason);
    const lessonsAsked = askLesson && conclusion.cause ? [...asked, conclusion.cause] : asked;
    return {
      ...next,
      ...(work ? { work: { ...work, lessonsAsked } } : {}),
      blocks: current.blocks + 1,
      totals: { ...totals, blocks: totals.blocks + 1 },
    };
  });
  return output;
}

/** A user-only note about gates that failed but are not required; undefined when there is none. */
function optionalFailures(results: HookGateResult[]): string | undefined {
  const failed = results.filter((result) => !result.passed && !result.gate.required);
  if (failed.length === 0) return undefined;
  return `loopwright: optional ${failed.length === 1 ? "gate" : "gates"} ${failed
    .map((result) => `${result.gate.id} (${result.ending}, log ${result.logPath})`)
    .join(", ")} failed; not blocking.`;
}
