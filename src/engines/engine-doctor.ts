/**
 * What `doctor` (and `validate`) know about the agent CLIs on this machine: installed or not, version,
 * the credentials each would find (names only, never values), the provider it would use, and whether it
 * reports the cost a budget needs.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { findExecutable } from "../process/find-executable.ts";
import { agentCliDefinitions } from "./agent-cli/definitions.ts";

const run = promisify(execFile);

export interface EngineCheck {
  engine: string;
  installed: boolean;
  path?: string;
  version?: string;
  packageName: string;
  provider: string;
  credentials: string[];
  costReporting: string;
}

export async function checkEngines(env: NodeJS.ProcessEnv = process.env): Promise<EngineCheck[]> {
  return Promise.all(
    agentCliDefinitions.map(async (definition) => {
      const path = findExecutable(definition.binary, env);
      const version = path
        ? await run(path, ["--version"], { timeout: 15_000, env }).then(
            (result) => result.stdout.trim().split("\n")[0].replace(/\.$/, ""),
            () => "unknown (--version failed)",
          )
        : undefined;
      return {
        engine: definition.name,
        installed: path !== undefined,
        path,
        version,
        packageName: definition.packageName,
        provider: definition.provider({ engine: definition.name }, env),
        credentials: definition.credentials(env),
        costReporting: definition.costReporting,
      };
    }),
  );
}
