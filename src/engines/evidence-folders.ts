/**
 * What an agent CLI in a read-only role may open beside its worktree (`--add-dir`): the folders of
 * the gate logs and the diff it is pointed at. A file whose folder holds the turn's own files (the
 * iteration folder, with the maker's transcript and brief) is copied into a folder of its own instead,
 * and the prompt's mentions of it are pointed at the copy: the verifier's context stays blank.
 */
import { copyFile, mkdir } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { isInside } from "../agent/tools/workspace-paths.ts";
import type { TurnRequest } from "../core/engine.ts";
import { evidenceFiles } from "./evidence-files.ts";

export interface EvidenceFolders {
  /** Folders to open for reading. */
  directories: string[];
  /** The evidence as the turn sees it (files, or folders), for the sandbox to show. */
  paths: string[];
  /** The prompt, its paths pointed at the copies. */
  prompt: string;
}

export async function evidenceFolders(
  request: Pick<TurnRequest, "context" | "cwd" | "turnDirectory" | "prompt" | "stepId">,
): Promise<EvidenceFolders> {
  const directories = new Set<string>();
  const paths: string[] = [];
  let prompt = request.prompt;
  const own = join(request.turnDirectory, `${request.stepId}-evidence`);
  for (const file of evidenceFiles(request.context)) {
    const folder = dirname(file);
    if (isInside(request.cwd, file)) continue;
    if (!isInside(folder, request.turnDirectory)) {
      directories.add(folder);
      paths.push(folder);
      continue;
    }
    await mkdir(own, { recursive: true });
    const copy = join(own, `${basename(dirname(file))}-${basename(file)}`);
    await copyFile(file, copy);
    prompt = prompt.replaceAll(file, copy);
    directories.add(own);
    paths.push(copy);
  }
  return { directories: [...directories], paths, prompt };
}
