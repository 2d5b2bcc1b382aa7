/**
 * Creating a loop from spec text, validated exactly as `run` validates a spec file: the same problems
 * (`file:line: field: message`), the same preflight, nothing created unless all is well. Throws
 * `SpecError` (every problem) or `UsageError` (a name or branch already taken).
 */
import { isAbsolute, join } from "node:path";
import { maximumSpecBytes, parseSpecText } from "../../core/spec-file.ts";
import { SpecError } from "../../errors.ts";
import { createLoop } from "../../loop/create-loop.ts";
import { preflight } from "../../loop/preflight.ts";
import type { LoopRecord, Store } from "../../store/store.ts";

export interface SpecSubmission {
  text: string;
  /** The name problems are reported against (`spec.yaml`, the uploaded file's name). */
  label: string;
  /** Absolute folder the spec's relative paths are read from. */
  folder: string;
}

export async function createLoopFromText(store: Store, submission: SpecSubmission): Promise<LoopRecord> {
  const { text, label, folder } = submission;
  if (!isAbsolute(folder)) throw new SpecError([`${label}: folder: give an absolute path (got '${folder}')`]);
  if (Buffer.byteLength(text) > maximumSpecBytes) throw new SpecError([`${label}: too large (over 1 MiB)`]);
  if (!text.trim()) throw new SpecError([`${label}: the spec is empty; paste or upload one`]);
  const parsed = parseSpecText(text, label, folder);
  const loaded = { ...parsed, specPath: join(folder, label.replace(/[/\\]/g, "_")) };
  const check = await preflight(loaded, label);
  if (check.problems.length > 0 || !check.repoRoot || !check.baseSha) throw new SpecError(check.problems);
  return createLoop(store, loaded, check.repoRoot, check.baseSha);
}
