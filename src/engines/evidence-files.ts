/**
 * The files outside the worktree a read-only turn is pointed at: the gate logs and the diff named in
 * its context. Only these files, never their folders: the maker's transcript and brief lie beside them,
 * and the verifier must not see them.
 */
import { existsSync } from "../files/node-fs.ts";
import type { TurnContext } from "./turn-context.ts";

export function evidenceFiles(context: Record<string, unknown>): string[] {
  const { gates, diffPath } = context as Partial<TurnContext>;
  const files = [diffPath, ...(gates ?? []).map((gate) => gate.logPath)];
  return [...new Set(files.filter((file): file is string => Boolean(file) && existsSync(file as string)))];
}
