/**
 * The owner's actions from the dashboard: the form's fields turned into the same requests the CLI files
 * (same validation, same messages), recorded with the actor. Throws `UsageError` with the CLI's message
 * for a request that cannot apply; nothing is recorded then.
 */
import YAML from "yaml";
import { UsageError } from "../../errors.ts";
import { runLoop } from "../../loop/runner.ts";
import { applySteering, type SteerInput, validateSteerRequest } from "../../loop/steering.ts";
import { readState } from "../../loop/timeline.ts";
import type { LoopRecord, Store } from "../../store/store.ts";
import type { SteerFormValues } from "./action-forms.ts";
import type { Actor } from "./timeline-view.ts";

export interface ActionContext {
  store: Store;
  home: string;
  loop: LoopRecord;
  actor: Actor;
  /** Runs the loop in the background (the service's job); the dashboard never waits for it. */
  startInBackground: (loop: LoopRecord, command: "run" | "resume") => void;
}

/** The steer form's fields as the CLI's `steer` options would give them. */
export function steerInputFromForm(values: SteerFormValues): SteerInput {
  const text = (name: string) => {
    const value = values[name];
    return (Array.isArray(value) ? value[0] : value)?.trim() ?? "";
  };
  const list = (name: string) => {
    const value = values[name];
    return (Array.isArray(value) ? value : value ? [value] : []).filter((entry) => entry.trim() !== "");
  };
  const input: SteerInput = {};
  if (text("goal")) input.goal = text("goal");
  const addGates: unknown[] = [];
  const removeGates = list("remove_gate");
  if (text("add_gate")) addGates.push(parseGate(text("add_gate"), "--add-gate"));
  if (text("edit_gate")) {
    if (!text("edit_gate_yaml"))
      throw new UsageError(`edit gate ${text("edit_gate")}: give its new definition`);
    const edited = parseGate(text("edit_gate_yaml"), "--add-gate");
    // An edit is a removal and an addition under the same id, as `steer --remove-gate x --add-gate ...`.
    if (!removeGates.includes(text("edit_gate"))) removeGates.push(text("edit_gate"));
    addGates.push(edited);
  }
  if (addGates.length > 0) input.addGates = addGates;
  if (removeGates.length > 0) input.removeGates = removeGates;
  const budget: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(values)) {
    if (!name.startsWith("budget_")) continue;
    const entry = (Array.isArray(value) ? value[0] : value)?.trim();
    if (!entry) continue;
    budget[name.slice("budget_".length)] = /^\d+(\.\d+)?$/.test(entry) ? Number(entry) : entry;
  }
  if (Object.keys(budget).length > 0) input.budget = budget;
  return input;
}

function parseGate(text: string, option: string): unknown {
  try {
    return YAML.parse(text);
  } catch (error) {
    throw new UsageError(`${option}: not YAML: ${(error as Error).message.split("\n")[0]}`);
  }
}

/** Files a steering request; returns what the owner is told. */
export async function steerLoop(context: ActionContext, input: SteerInput): Promise<string> {
  if (Object.keys(input).length === 0)
    throw new UsageError(
      "steer: nothing to change (give a goal, a gate to add, remove or edit, or a budget)",
    );
  const { store, loop } = context;
  const { state } = await readState(store, loop);
  if (state.status === "stopped" && state.stopReason === "verified") {
    throw new UsageError(
      `loop ${loop.name} is verified and finished: steering would never apply; start a new loop for a new goal`,
    );
  }
  const pendingSpec = applySteering(state.spec, state.pendingSteers).spec;
  const validated = validateSteerRequest(pendingSpec, input);
  await store.appendEvent(loop.id, "steer_requested", { request: validated, by: context.actor });
  const running = await store.lockHolder(loop.id);
  return running
    ? `steering filed for ${loop.name}: applied at the next iteration boundary`
    : `steering filed for ${loop.name}: applied when it resumes`;
}

export async function pauseLoop(context: ActionContext): Promise<string> {
  const { store, loop } = context;
  const { state } = await readState(store, loop);
  if (state.status === "stopped") throw new UsageError(`loop ${loop.name} is stopped (${state.stopReason})`);
  if (state.status === "paused") throw new UsageError(`loop ${loop.name} is already paused`);
  await store.appendEvent(loop.id, "pause_requested", { by: context.actor });
  return `pause filed for ${loop.name}: the current iteration finishes, then the loop waits`;
}

export async function cancelLoop(context: ActionContext): Promise<string> {
  const { store, loop } = context;
  const { state } = await readState(store, loop);
  if (state.status === "stopped")
    throw new UsageError(`loop ${loop.name} is already stopped (${state.stopReason})`);
  if (await store.lockHolder(loop.id)) {
    await store.appendEvent(loop.id, "cancel_requested", { by: context.actor });
    return `cancel filed for ${loop.name}: the running turn is being stopped`;
  }
  // No live controller: close the loop here, as `loopwright cancel` does.
  await runLoop({ store, loop, home: context.home, command: "resume", cancel: true });
  return `${loop.name} cancelled`;
}

export async function resumeLoop(context: ActionContext): Promise<string> {
  const { store, loop } = context;
  if (await store.lockHolder(loop.id)) throw new UsageError(`loop ${loop.name} is already running`);
  const { state } = await readState(store, loop);
  if (state.stopReason === "verified")
    throw new UsageError(`loop ${loop.name} is verified: nothing to resume`);
  context.startInBackground(loop, "resume");
  return `${loop.name} resumed in the background`;
}
