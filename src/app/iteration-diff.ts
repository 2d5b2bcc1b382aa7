/**
 * An iteration's change per file, from the diff the screen recorded (redacted before it was written), each
 * file with the scope screen's verdict on it.
 */
import { FieldError, UsageError } from "../errors.ts";
import { readRegularFile } from "../files/read-regular-file.ts";
import { parseUnifiedDiff } from "../verify/tamper/unified-diff.ts";
import { type AppContext, readLoop } from "./app-context.ts";
import { iterationOrThrow } from "./iterations.ts";
import { parseRequest } from "./parse-request.ts";
import { type DiffRequest, diffRequestSchema, type IterationDiff } from "./schemas/file-schemas.ts";

/** Largest recorded diff read whole. */
const maximumDiffBytes = 64 * 1024 * 1024;

/**
 * The files of `iteration`'s change in diff order; only `file` when given (its new or old path). Throws
 * `LoopNotFoundError`, `FieldError` on `iteration` or `file`, or `UsageError` for an iteration whose
 * change was not screened (yet) or whose recorded diff cannot be read.
 */
export async function getIterationDiff(
  context: AppContext,
  reference: string,
  request: DiffRequest,
): Promise<IterationDiff> {
  const { iteration: number, file } = parseRequest(diffRequestSchema, request);
  const { loop, state } = await readLoop(context, reference);
  if (number === 0) {
    const message = "iteration 0 is the gates' run on the base commit: it has no change";
    throw new FieldError("iteration", message, message);
  }
  const iteration = iterationOrThrow(state, number, loop.name);
  const screen = iteration.screen;
  if (!screen) throw new UsageError(`iteration ${number} of loop ${loop.name} has no screened change (yet)`);
  const read = await readRegularFile(screen.diffPath, { maximumBytes: maximumDiffBytes, noFollow: true });
  if (!read.ok) throw new UsageError(`the diff of iteration ${number} is not readable: ${read.problem}`);
  const violations = new Map(screen.scopeViolations.map((violation) => [violation.file, violation.rule]));
  const protectedFiles = new Set(screen.protectedFiles);
  const files = splitPatch(read.text).map((patch) => {
    const parsed = parseUnifiedDiff(patch)[0];
    const lines = parsed?.hunks.flatMap((hunk) => hunk.lines) ?? [];
    const path = parsed?.path ?? "";
    const oldPath = parsed?.oldPath ?? path;
    return {
      path,
      oldPath,
      status: parsed?.status ?? "modified",
      binary: parsed?.binary ?? false,
      additions: lines.filter((line) => line.sign === "+").length,
      deletions: lines.filter((line) => line.sign === "-").length,
      scopeViolation: violations.get(path) ?? violations.get(oldPath) ?? null,
      protected: protectedFiles.has(path) || protectedFiles.has(oldPath),
      patch,
    };
  });
  const selected = file ? files.filter((entry) => entry.path === file || entry.oldPath === file) : files;
  if (file && selected.length === 0)
    throw new FieldError("file", `iteration ${number} did not change ${file}`);
  return { loopId: loop.id, iteration: number, commit: iteration.commit?.sha ?? null, files: selected };
}

/** The unified diff cut before each `diff --git` line: one part per file. */
function splitPatch(text: string): string[] {
  const parts: string[] = [];
  for (const line of text.split(/(?<=\n)/)) {
    if (line.startsWith("diff --git ") || parts.length === 0) parts.push(line);
    else parts[parts.length - 1] += line;
  }
  return parts.filter((part) => part.startsWith("diff --git "));
}
