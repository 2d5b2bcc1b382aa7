/** One turn of the `codex` engine (codex-engine.ts): `codex exec --json`, its output translated. */
import { mkdir, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import type { TurnRequest, TurnResult } from "../../core/engine.ts";
import { type ModelPrice, priceTable } from "../../core/pricing.ts";
import type { EngineSpec } from "../../core/spec.ts";
import { runCliTurn } from "../agent-cli/run-cli-turn.ts";
import { evidenceFiles } from "../evidence-files.ts";
import { codexArguments } from "./codex-arguments.ts";
import { codexModel } from "./codex-engine.ts";
import { strictOutputSchema } from "./strict-output-schema.ts";
import { createCodexTranslator } from "./translate-codex.ts";

export async function runCodexTurn(spec: EngineSpec, request: TurnRequest): Promise<TurnResult> {
  await mkdir(request.turnDirectory, { recursive: true });
  const env = { ...process.env, ...request.env };
  let prices: Record<string, ModelPrice>;
  try {
    prices = priceTable(env);
  } catch (error) {
    return { status: "crashed", text: "", error: (error as Error).message };
  }
  let schemaPath: string | undefined;
  if (request.outputSchema !== undefined) {
    schemaPath = join(request.turnDirectory, `codex-${request.role}-output-schema.json`);
    await writeFile(schemaPath, `${JSON.stringify(strictOutputSchema(request.outputSchema), null, 2)}\n`);
  }
  return runCliTurn({
    request,
    argv: codexArguments({
      role: request.role,
      readOnly: request.readOnly,
      model: spec.model,
      args: spec.args,
      schemaPath,
    }),
    stdin: request.prompt,
    evidence: [...(schemaPath ? [schemaPath] : []), ...evidenceFiles(request.context)],
    programState: [env.CODEX_HOME ?? join(env.HOME ?? homedir(), ".codex")],
    translator: createCodexTranslator({
      model: codexModel(spec, env),
      prices,
      structured: request.readOnly || schemaPath !== undefined,
      dropNulls: schemaPath !== undefined,
    }),
  });
}
