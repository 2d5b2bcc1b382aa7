/**
 * Submitting a loop to the service: the face of `run --detach` and of `POST /api/loops`. The spec is
 * validated and the loop created exactly as `run` does (same checks, same errors), then queued for the
 * service, which starts queued loops in submission order within its caps.
 */

import { type Actor, eventSchemaVersion } from "../core/events.ts";
import { type LoadedSpec, loadSpecFile, parseSpecText } from "../core/spec-file.ts";
import { FieldError, SpecError } from "../errors.ts";
import { createLoop } from "../loop/create-loop.ts";
import { preflight } from "../loop/preflight.ts";
import { readServiceFile, type ServiceInfo } from "../service/service-file.ts";
import type { LoopRecord } from "../store/store.ts";
import type { AppContext } from "./app-context.ts";
import { listLoops } from "./list-loops.ts";

/**
 * Where the spec comes from: a file (its path as the user gave it names it in problems), or text already
 * in memory (a request body), named by `label`, its relative paths read from `directory`.
 */
export type SpecSource =
  | { path: string }
  | { text: string; label: string; directory: string; specPath?: string }
  | { loaded: LoadedSpec; label: string };

export interface SubmitLoopOptions {
  /** The store, and the home folder where a running service announces itself. */
  context: AppContext;
  source: SpecSource;
  /** Who submits it, recorded on the timeline. */
  by: Actor;
}

export interface SubmittedLoop {
  loop: LoopRecord;
  /** Its place in the queue, from 1 (1: the next loop the service starts). */
  position: number;
  /** The running service that will start it, if there is one. */
  service?: ServiceInfo;
  /** What will work but probably not as meant (as `validate` prints them). */
  warnings: string[];
}

/**
 * Validates the spec, creates the loop and queues it (`loop_queued {by, command: "run"}`). Throws what
 * `run` throws for the same spec: `SpecError` listing every problem (`label:line: field: message`),
 * `UsageError` for a loop or branch of that name that already exists, `LoopBusyError` when it runs,
 * `FieldError` (`schedule`) for a spec with a schedule (`submitSpec` registers those).
 * Nothing is created when it throws.
 */
export async function submitLoop(options: SubmitLoopOptions): Promise<SubmittedLoop> {
  const { context, source } = options;
  const { store } = context;
  const { loaded, label } = await loadSpecSource(source);
  if (loaded.spec.schedule) {
    // Queueing it once would drop its schedule without a word: submitSpec registers it instead.
    throw new FieldError(
      "schedule",
      "a spec with a schedule is registered (submitSpec, run --detach), not queued once",
    );
  }
  const check = await preflight(loaded, label);
  if (check.problems.length > 0 || !check.repoRoot || !check.baseSha) throw new SpecError(check.problems);
  const loop = await createLoop(store, loaded, check.repoRoot, check.baseSha);
  await store.appendEvent(loop.id, "loop_queued", { by: options.by, command: "run" }, eventSchemaVersion);
  return {
    loop,
    position: (await listLoops(context)).loops.find((row) => row.id === loop.id)?.queuePosition ?? 0,
    service: await readServiceFile(context.home),
    warnings: check.warnings,
  };
}

/** The spec of `source`, read and validated (throws `SpecError`), and the label its problems are named by. */
export async function loadSpecSource(source: SpecSource): Promise<{ loaded: LoadedSpec; label: string }> {
  if ("loaded" in source) return source;
  if ("path" in source) return { loaded: await loadSpecFile(source.path), label: source.path };
  const parsed = parseSpecText(source.text, source.label, source.directory);
  return { loaded: { ...parsed, specPath: source.specPath ?? source.label }, label: source.label };
}
