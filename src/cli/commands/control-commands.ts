/**
 * `steer`, `pause` and `cancel`: requests filed on the loop's timeline with the OS user as their actor,
 * which the running controller reads (it polls several times a second). With no live controller,
 * `cancel` closes the loop itself.
 */
import YAML from "yaml";
import { cancelLoop } from "../../app/cancel-loop.ts";
import { pauseLoop } from "../../app/pause-loop.ts";
import { steerLoop } from "../../app/steer-loop.ts";
import { UsageError } from "../../errors.ts";
import type { SteerInput } from "../../loop/steering.ts";
import { cliActor } from "../cli-actor.ts";
import { progressPrinter } from "../progress-printer.ts";
import { appContext, openSession } from "../session.ts";

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
    const filed = await steerLoop(await appContext(session), reference, request, cliActor());
    process.stdout.write(`${filed.message}\n`);
    if (filed.warning) process.stdout.write(`warning: ${filed.warning}\n`);
    return 0;
  } finally {
    await session.store.close();
  }
}

export async function pauseCommand(reference: string): Promise<number> {
  const session = await openSession();
  try {
    const filed = await pauseLoop(await appContext(session), reference, cliActor());
    process.stdout.write(`${filed.message}\n`);
    return 0;
  } finally {
    await session.store.close();
  }
}

export async function cancelCommand(reference: string): Promise<number> {
  const session = await openSession();
  try {
    const context = await appContext(session);
    const result = await cancelLoop(context, reference, cliActor(), { onEvent: progressPrinter() });
    // Stopped here, the progress printer has said so; filed, say what happens next.
    if (result.outcome === "cancel_requested") process.stdout.write(`${result.message}\n`);
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
