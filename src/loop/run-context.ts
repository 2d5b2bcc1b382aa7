/**
 * What every step of a running loop shares: the store, the loop, its folders, this controller's run id,
 * the live state, and `append`, the only way a step records what it did.
 */

import type { EventPayloads, EventType } from "../core/events.ts";
import type { Redact } from "../core/redact.ts";
import type { homeLayout } from "../paths.ts";
import type { LoopRecord, Store } from "../store/store.ts";
import type { LoopState } from "./state.ts";

export interface RunContext {
  store: Store;
  loop: LoopRecord;
  layout: ReturnType<typeof homeLayout>;
  runId: string;
  /** The state replayed up to the last appended event. */
  state(): LoopState;
  /** Appends an event (durably) and folds it, and any event other processes appended, into the state. */
  append<K extends EventType>(type: K, data: EventPayloads[K]): Promise<void>;
  /** Aborted when the user cancels; steps pass it to every turn and command they start. */
  cancelSignal: AbortSignal;
  redact: Redact;
  /** The controller's clock in ms since the epoch (for the daily cost cap). */
  now(): number;
  makerWorktree: string;
  gateWorktree: string;
}
