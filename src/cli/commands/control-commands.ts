/**
 * `steer`, `pause` and `cancel`: requests filed on the loop's timeline, which the running controller
 * reads (it polls several times a second). With no live controller, `cancel` closes the loop itself.
 */
import YAML from "yaml";
import { UsageError } from "../../errors.ts";
import { runLoop } from "../../loop/runner.ts";
import { countedIterations, type LoopState } from "../../loop/state.ts";
import { applySteering, type SteerInput, validateSteerRequest } from "../../loop/steering.ts";
import { readState } from "../../loop/timeline.ts";
import { progressPrinter } from "../progress-printer.ts";
import { findLoopOrThrow, openSession } from "../session.ts";

interface SteerOptions {
  goal?: string;
  addGate: string[];
  removeGate: string[];
  budget: string[];
}

export async function steerCommand(reference: string, options: SteerOptions): Promise<number> {
  const request: SteerInput = {};
  if (options.goal !== undefined) request.goal = options.goal;
  if (options.addGate.length > 0) request.addGates = options.addGate.map(parseGateOption);
  if (options.removeGate.length > 0) request.removeGates = options.removeGate;
  if (options.budget.length > 0) request.budget = Object.fromEntries(options.budget.map(parseBudgetOption));
  if (Object.keys(request).length === 0)
    throw new UsageError("steer: nothing to change (use --goal, --add-gate, --remove-gate or --budget)");
  const session = await openSession();
  try {
    const loop = await findLoopOrThrow(session.store, reference);
    const { state } = await readState(session.store, loop);
    if (state.status === "stopped" && state.stopReason === "verified") {
      throw new UsageError(
        `loop ${loop.name} is verified and finished: steering would never apply; start a new loop for a new goal (loopwright run)`,
      );
    }
    const pendingSpec = applySteering(state.spec, state.pendingSteers).spec;
    const validated = validateSteerRequest(pendingSpec, request);
    await session.store.appendEvent(loop.id, "steer_requested", { request: validated });
    const running = await session.store.lockHolder(loop.id);
    process.stdout.write(`${describeFiled(loop.name, state, running !== undefined)}\n`);
    const spent = budgetSpentAfter(state, applySteering(pendingSpec, [validated]).spec.budget.maxIterations);
    if (spent) process.stdout.write(`warning: ${spent}\n`);
    return 0;
  } finally {
    await session.store.close();
  }
}

export async function pauseCommand(reference: string): Promise<number> {
  const session = await openSession();
  try {
    const loop = await findLoopOrThrow(session.store, reference);
    const { state } = await readState(session.store, loop);
    if (state.status === "stopped")
      throw new UsageError(`loop ${loop.name} is stopped (${state.stopReason})`);
    if (state.status === "paused") throw new UsageError(`loop ${loop.name} is already paused`);
    await session.store.appendEvent(loop.id, "pause_requested", {});
    process.stdout.write(
      `pause filed for ${loop.name}: the current iteration finishes, then the loop waits\n`,
    );
    return 0;
  } finally {
    await session.store.close();
  }
}

export async function cancelCommand(reference: string): Promise<number> {
  const session = await openSession();
  try {
    const loop = await findLoopOrThrow(session.store, reference);
    const { state } = await readState(session.store, loop);
    if (state.status === "stopped")
      throw new UsageError(`loop ${loop.name} is already stopped (${state.stopReason})`);
    if (await session.store.lockHolder(loop.id)) {
      await session.store.appendEvent(loop.id, "cancel_requested", {});
      process.stdout.write(`cancel filed for ${loop.name}: the running turn is being stopped\n`);
      return 0;
    }
    await runLoop({
      store: session.store,
      loop,
      home: session.home,
      command: "resume",
      cancel: true,
      onEvent: progressPrinter(),
    });
    return 0;
  } finally {
    await session.store.close();
  }
}

function parseGateOption(text: string): unknown {
  try {
    return YAML.parse(text);
  } catch (error) {
    throw new UsageError(`--add-gate: not YAML: ${(error as Error).message.split("\n")[0]}`);
  }
}

function parseBudgetOption(text: string): [string, string | number] {
  const match = /^([A-Za-z]+)=(.+)$/.exec(text.trim());
  if (!match) throw new UsageError(`--budget: expected KEY=VALUE, got '${text}'`);
  const value = match[2].trim();
  return [match[1], /^\d+(\.\d+)?$/.test(value) ? Number(value) : value];
}

/** What the user is told when a steer is filed: when it will apply. */
function describeFiled(name: string, state: LoopState, running: boolean): string {
  if (running) return `steering filed for ${name}: applied at the next iteration boundary`;
  const stopped = state.status === "stopped" ? ` (stopped: ${state.stopReason})` : "";
  return `steering filed for ${name}${stopped}: applied when it resumes (loopwright resume ${name})`;
}

/** A stopped loop whose iteration budget stays spent stops again right after applying the steer: say so. */
function budgetSpentAfter(state: LoopState, maxIterations: number): string | undefined {
  if (state.status !== "stopped" || maxIterations === 0) return undefined;
  const counted = countedIterations(state);
  if (counted < maxIterations) return undefined;
  return `the iteration budget is spent (${counted} of ${maxIterations}): the loop stops again right after applying this; raise it with --budget maxIterations=${counted + 1}`;
}
