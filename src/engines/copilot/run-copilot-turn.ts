/** One turn of the `copilot` engine (copilot-engine.ts): the CLI run headless, its usage report read. */
import { mkdir, readFile, rm } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import type { TurnRequest, TurnResult } from "../../core/engine.ts";
import type { EngineSpec } from "../../core/spec.ts";
import { runCliTurn } from "../agent-cli/run-cli-turn.ts";
import { evidenceFolders } from "../evidence-folders.ts";
import { copilotArguments, copilotEnvironment } from "./copilot-arguments.ts";
import { copilotTranslator, readUsageReport } from "./translate-copilot.ts";

export async function runCopilotTurn(spec: EngineSpec, request: TurnRequest): Promise<TurnResult> {
  await mkdir(request.turnDirectory, { recursive: true });
  // In a folder of its own, which the sandbox opens to the CLI (it replaces the file at the end).
  const usageFolder = join(request.turnDirectory, `${request.stepId}-copilot-usage`);
  const usageFile = join(usageFolder, "usage.json");
  await rm(usageFolder, { recursive: true, force: true });
  await mkdir(usageFolder);
  const evidence = request.readOnly
    ? await evidenceFolders(request)
    : { directories: [], paths: [], prompt: request.prompt };
  const readableDirectories = evidence.directories;
  const result = await runCliTurn({
    request,
    argv: [
      "copilot",
      ...copilotArguments({ readOnly: request.readOnly, usageFile, readableDirectories }, spec),
    ],
    env: copilotEnvironment,
    translator: copilotTranslator({ structured: request.role !== "maker" }),
    stdin: evidence.prompt,
    evidence: evidence.paths,
    programState: [usageFolder, ...copilotStateFolders({ ...process.env, ...request.env })],
  });
  const report = readUsageReport(await readFile(usageFile, "utf8").catch(() => ""));
  if (!report) return result;
  request.onEvent?.({ type: "usage", usage: report.usage, premiumRequests: report.premiumRequests });
  return { ...result, usage: report.usage };
}

/** Where the CLI keeps its state and unpacks itself (see the header). */
function copilotStateFolders(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME ?? homedir();
  return [env.COPILOT_HOME ?? join(home, ".copilot"), env.XDG_CACHE_HOME ?? join(home, ".cache")];
}
