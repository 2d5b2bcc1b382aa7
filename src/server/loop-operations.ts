/**
 * What the API does to loops, in one place: each route calls one of these. Until the application layer
 * (src/app/) lands, they are written over the existing read code; then they become thin calls into it.
 */
import { LoopBusyError, LoopNotFoundError, UsageError } from "../errors.ts";
import { diffText } from "../git/diffs.ts";
import { summarizeLoop } from "../loop/iteration-summary.ts";
import { gateStandings, renderReport } from "../loop/report.ts";
import { allGateResults, type LoopState } from "../loop/state.ts";
import { applySteering, type SteerInput, validateSteerRequest } from "../loop/steering.ts";
import { readState } from "../loop/timeline.ts";
import type { LoopRecord, Store } from "../store/store.ts";
import type { WebActor } from "./access-guard.ts";

export interface OperationsContext {
  store: Store;
  home: string;
}

/** A field of the request that is wrong: the API answers 400 naming it. */
export class RequestFieldError extends UsageError {
  override name = "RequestFieldError";
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.field = field;
  }
}

export async function findLoop(context: OperationsContext, reference: string): Promise<LoopRecord> {
  const loop = await context.store.findLoop(reference);
  if (!loop) throw new LoopNotFoundError(`no loop named or with id '${reference}'`);
  return loop;
}

async function read(context: OperationsContext, reference: string) {
  const loop = await findLoop(context, reference);
  return { loop, ...(await readState(context.store, loop)) };
}

export async function listLoops(context: OperationsContext) {
  const loops = [];
  const warnings: string[] = [];
  for (const loop of await context.store.listLoops()) {
    try {
      const { state } = await readState(context.store, loop);
      const running = (await context.store.lockHolder(loop.id)) !== undefined;
      loops.push({
        id: loop.id,
        name: loop.name,
        repoRoot: loop.repoRoot,
        status: running ? "running" : state.status,
        stopReason: state.stopReason ?? null,
        iterations: state.iterations.length,
        costUsd: state.costUsd,
        createdAt: loop.createdAt,
      });
    } catch (error) {
      warnings.push(`loop ${loop.name} (${loop.id}): ${(error as Error).message}`);
    }
  }
  return { loops, warnings };
}

export async function loopDetail(context: OperationsContext, reference: string) {
  const { loop, state, events } = await read(context, reference);
  return {
    id: loop.id,
    name: loop.name,
    repoRoot: loop.repoRoot,
    createdAt: loop.createdAt,
    goal: state.spec.goal,
    spec: applySteering(state.spec, []).spec as unknown as Record<string, unknown>,
    summary: summarizeLoop(state, events) as unknown as Record<string, unknown>,
  };
}

export async function loopIterations(context: OperationsContext, reference: string) {
  const { state, events } = await read(context, reference);
  return { iterations: summarizeLoop(state, events).iterations as unknown as Record<string, unknown>[] };
}

export async function loopTimeline(
  context: OperationsContext,
  reference: string,
  page: { after: number; limit: number },
) {
  const loop = await findLoop(context, reference);
  const events = await context.store.readEventsAfter(page.after, page.limit + 1, loop.id);
  const shown = events.slice(0, page.limit);
  return {
    events: shown.map((event) => ({
      id: event.id,
      seq: event.seq,
      type: event.type,
      at: event.at,
      data: event.data,
      ...(event.damage ? { damage: event.damage } : {}),
    })),
    next: events.length > page.limit ? (shown.at(-1)?.id ?? null) : null,
  };
}

function iterationOf(state: LoopState, loopName: string, number: number) {
  const iteration = state.iterations.find((candidate) => candidate.number === number);
  if (!iteration) throw new RequestFieldError("iteration", `loop ${loopName} has no iteration ${number}`);
  return iteration;
}

export async function loopBrief(context: OperationsContext, reference: string, number: number) {
  const { loop, state } = await read(context, reference);
  return iterationOf(state, loop.name, number).brief;
}

export async function loopDiff(context: OperationsContext, reference: string, number: number) {
  const { loop, state } = await read(context, reference);
  const commit = iterationOf(state, loop.name, number).commit;
  if (!commit?.committed) return { commit: null, files: [] };
  const text = await diffText(loop.repoRoot, `${commit.sha}~1`, commit.sha);
  const files = text
    .split(/^(?=diff --git )/m)
    .filter((part) => part.startsWith("diff --git "))
    .map((part) => ({ path: /^diff --git a\/(.*?) b\//.exec(part)?.[1] ?? "", diff: part }));
  return { commit: commit.sha, files };
}

/** The log file of one gate run: `phase` defaults to the last run of that gate in the iteration. */
export async function gateLogPath(
  context: OperationsContext,
  reference: string,
  number: number,
  gate: string,
  phase?: string,
): Promise<{ loop: LoopRecord; path: string }> {
  const { loop, state } = await read(context, reference);
  const results =
    number === 0 ? Object.values(state.baseline) : allGateResults(iterationOf(state, loop.name, number));
  const matching = results.filter((result) => result.id === gate && (!phase || result.phase === phase));
  const result = matching.at(-1);
  if (!result) throw new RequestFieldError("gate", `iteration ${number} has no log for gate '${gate}'`);
  return { loop, path: result.logPath };
}

export async function reportMarkdown(context: OperationsContext, reference: string) {
  const { state, events } = await read(context, reference);
  return renderReport(state, events);
}

export async function reportData(context: OperationsContext, reference: string) {
  const { state, events } = await read(context, reference);
  const verdict = [...state.iterations].reverse().find((iteration) => iteration.verifier?.verdict)
    ?.verifier?.verdict;
  return {
    goal: state.spec.goal,
    ...(summarizeLoop(state, events) as unknown as Record<string, unknown>),
    gateStandings: gateStandings(state),
    verdict: (verdict ?? null) as Record<string, unknown> | null,
  };
}

export async function steerLoop(
  context: OperationsContext,
  reference: string,
  input: SteerInput,
  by: WebActor,
) {
  const { loop, state } = await read(context, reference);
  if (state.status === "stopped" && state.stopReason === "verified")
    throw new UsageError(`loop ${loop.name} is verified and finished: steering would never apply`);
  const pending = applySteering(state.spec, state.pendingSteers).spec;
  const validated = validateSteerRequest(pending, input);
  const event = await context.store.appendEvent(loop.id, "steer_requested", { request: validated, by });
  return { loopId: loop.id, eventId: event.id, message: `steering filed for ${loop.name}` };
}

export async function pauseLoop(context: OperationsContext, reference: string, by: WebActor) {
  const { loop, state } = await read(context, reference);
  if (state.status === "stopped") throw new UsageError(`loop ${loop.name} is stopped (${state.stopReason})`);
  if (state.status === "paused") throw new UsageError(`loop ${loop.name} is already paused`);
  const event = await context.store.appendEvent(loop.id, "pause_requested", { by });
  return { loopId: loop.id, eventId: event.id, message: `pause filed for ${loop.name}` };
}

export async function cancelLoop(context: OperationsContext, reference: string, by: WebActor) {
  const { loop, state } = await read(context, reference);
  if (state.status === "stopped")
    throw new UsageError(`loop ${loop.name} is already stopped (${state.stopReason})`);
  const event = await context.store.appendEvent(loop.id, "cancel_requested", { by });
  return { loopId: loop.id, eventId: event.id, message: `cancel filed for ${loop.name}` };
}

export async function resumeLoop(_context: OperationsContext, _reference: string, _by: WebActor) {
  throw new UsageError("resume from the API needs the service's queue (not available yet)");
}

export async function deleteLoop(context: OperationsContext, reference: string) {
  const loop = await findLoop(context, reference);
  const holder = await context.store.lockHolder(loop.id);
  if (holder) throw new LoopBusyError(`loop ${loop.name} is running (pid ${holder.pid}); cancel it first`);
  await context.store.deleteLoop(loop.id);
  return { loopId: loop.id, message: `removed ${loop.name} (${loop.id})` };
}
