/**
 * What the tests of an engine's real loops share: one mock-model server playing the script of every
 * loop of the file, the environment that points the real agent CLIs at it (a temporary home of their
 * own, node_modules/.bin first on PATH), and `run`, a loop through the real `loopwright` binary.
 */
import { rm } from "node:fs/promises";
import { delimiter, join } from "node:path";
import type { LoggedRequest } from "../../src/mock-model/request-log.ts";
import type { ScriptInput } from "../../src/mock-model/script.ts";
import { type MockModel, startMockModel } from "../../src/mock-model/server.ts";
import { agentCliEnvironment } from "./agent-cli-env.ts";
import type { CliResult, Sandbox } from "./loop-sandbox.ts";
import { eventsIn, loopSummary, type StreamedEvent } from "./loop-timeline.ts";

/** Where the real claude, codex and copilot CLIs are installed (dev dependencies). */
export const binaries = new URL("../../node_modules/.bin", import.meta.url).pathname;

/** What the engine tests read of `show <loop> --json`. */
export interface LoopSummary {
  stopReason: string;
  costUsd: number;
  iterations: { outcome: string; costUsd: number }[];
}

export interface EngineLoopRun {
  run: CliResult;
  /** The events the run streamed, when it ran with `json`. */
  events: StreamedEvent[];
  summary: LoopSummary;
  /** stdout and stderr of the run, for assertion messages. */
  output: string;
}

export interface EngineLoops {
  model: MockModel;
  /** The environment of the `loopwright` process, which passes it on to the engines. */
  env: Record<string, string>;
  /** The model requests of one conversation of the script, in order. */
  requestsOf(conversation: string): LoggedRequest[];
  /**
   * Writes `spec` as `<name>.yaml` in the sandbox root, runs the loop (with `--json` when `json`), and
   * reads `show <name> --json`.
   */
  run(
    sandbox: Sandbox,
    name: string,
    spec: string,
    options?: { json?: boolean; timeoutMs?: number },
  ): Promise<EngineLoopRun>;
  /** Stops the server and removes the CLIs' home. */
  close(): Promise<void>;
}

/**
 * Starts the server on `script`. The environment is the agent CLIs' unless `env` gives another for
 * the server's URL (engines that talk to the model themselves).
 */
export async function startEngineLoops(
  script: ScriptInput,
  options: { env?: (url: string) => Record<string, string> } = {},
): Promise<EngineLoops> {
  const model = await startMockModel({ script });
  const env = options.env
    ? options.env(model.url)
    : {
        ...(await agentCliEnvironment(model.url)),
        PATH: `${binaries}${delimiter}${process.env.PATH ?? ""}`,
      };
  return {
    model,
    env,
    requestsOf: (conversation) => model.requests.filter((request) => request.conversation === conversation),
    run: async (sandbox, name, spec, { json = false, timeoutMs } = {}) => {
      const path = await sandbox.spec(spec, join(sandbox.root, `${name}.yaml`));
      const run = await sandbox.cli(["run", path, ...(json ? ["--json"] : [])], { env, timeoutMs });
      return {
        run,
        events: json ? eventsIn(run.stdout) : [],
        summary: await loopSummary(sandbox, name, env),
        output: run.stdout + run.stderr,
      };
    },
    close: async () => {
      await model.close();
      if (!options.env) await rm(env.HOME, { recursive: true, force: true });
    },
  };
}
