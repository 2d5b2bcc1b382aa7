/**
 * Hook mode's state in `.loopwright/state.json`: the open work, the circuit breaker's counter, the
 * gates already green at a state of the code, and running totals. Every change is a read-modify-write
 * under a lock file, written to a temporary file and renamed, so concurrent hooks leave exact counts
 * and a reader never sees half a file.
 */
import { readFileSync, renameSync, writeFileSync } from "../../files/node-fs.ts";
import type { HookLayout } from "../hook-layout.ts";
import { ensureStateFolder } from "../hook-layout.ts";
import type { OpenWork } from "../work/deferred-work.ts";
import { withFileLock } from "./file-lock.ts";

export interface HookTotals {
  prompts: number;
  stops: number;
  /** Stops refused. */
  blocks: number;
  /** Stops let through by the circuit breaker. */
  breakerTrips: number;
  /** Reviews recorded by `hook subagent-stop`. */
  reviews: number;
}

export interface HookState {
  version: 1;
  work?: OpenWork;
  /** Blocks in a row; reset when a stop passes and when the breaker lets one through. */
  blocks: number;
  /** Gate id → the `all` content stamp at which it last passed on this working tree. */
  gatePasses: Record<string, string>;
  totals: HookTotals;
  /** sha256 of verdict.json as the hook last wrote it, under the lock: any other verdict file is refused. */
  verdictSha256?: string;
  /** Why the reviewer's last final message was no valid report (cleared by a valid one). */
  invalidReport?: { at: string; why: string };
  /** The last work closed with the definition of done holding. */
  lastClosed?: { at: string; codeStamp: string };
}

export function emptyHookState(): HookState {
  return {
    version: 1,
    blocks: 0,
    gatePasses: {},
    totals: { prompts: 0, stops: 0, blocks: 0, breakerTrips: 0, reviews: 0 },
  };
}

/** The state as stored; an empty state when there is none yet. Throws for a file that is not state. */
export function readHookState(layout: HookLayout): HookState {
  let text: string;
  try {
    text = readFileSync(layout.state, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return emptyHookState();
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${layout.state} is not valid JSON; delete it to start hook mode's state afresh`);
  }
  const empty = emptyHookState();
  const stored = parsed as Partial<HookState>;
  return { ...empty, ...stored, totals: { ...empty.totals, ...stored.totals } };
}

/**
 * Applies `change` to the current state under the lock and stores what it returns; resolves with the
 * new state. `change` must be quick and must not do IO that can wait (no gate, no git).
 */
export async function updateHookState(
  layout: HookLayout,
  change: (state: HookState) => HookState,
): Promise<HookState> {
  await ensureStateFolder(layout);
  return withFileLock(layout.stateLock, () => {
    const next = change(readHookState(layout));
    const temporary = `${layout.state}.${process.pid}.tmp`;
    // The open work right after the version: the launcher, which reads the file a byte at a time
    // (dash) to learn whether a prompt has work, stops at its line.
    const { version, work, ...rest } = next;
    writeFileSync(temporary, `${JSON.stringify({ version, work, ...rest }, null, 2)}\n`);
    renameSync(temporary, layout.state);
    return next;
  });
}
