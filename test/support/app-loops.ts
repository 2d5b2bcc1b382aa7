/**
 * Real loops for the application layer's tests: run by the real CLI in a sandbox, then read and acted on
 * in this process through src/app/ on the same SQLite store.
 */
import assert from "node:assert/strict";
import type { AppContext } from "../../src/app/app-context.ts";
import { openStore } from "../../src/store/open-store.ts";
import { createSandbox, type Sandbox } from "./loop-sandbox.ts";
import { readTimeline } from "./loop-timeline.ts";

export interface AppSandbox extends Sandbox {
  context: AppContext;
  /** Runs `loopwright run` on a spec; asserts its exit code. */
  runLoop(name: string, spec: string, exitCode: number): Promise<void>;
  /** The stored events of every loop of type `type`, data parsed. */
  eventsOfType(type: string): Record<string, unknown>[];
}

export async function createAppSandbox(files?: Record<string, string>): Promise<AppSandbox> {
  const sandbox = await createSandbox(files);
  // In-process actions (cancel runs the loop's stop here) must use git as the sandbox's CLI does.
  for (const name of ["GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM"]) process.env[name] = sandbox.env[name];
  const store = await openStore(sandbox.home);
  const cleanup = sandbox.cleanup;
  return Object.assign(sandbox, {
    context: { store, home: sandbox.home },
    runLoop: async (name: string, spec: string, exitCode: number) => {
      const path = await sandbox.spec(spec, `${sandbox.root}/${name}.yaml`);
      const result = await sandbox.cli(["run", path]);
      assert.equal(result.code, exitCode, result.stdout + result.stderr);
    },
    eventsOfType: (type: string) =>
      readTimeline(sandbox)
        .filter((event) => event.type === type)
        .map((event) => JSON.parse(event.data) as Record<string, unknown>),
    cleanup: async () => {
      await store.close();
      await cleanup();
    },
  });
}

/** A loop the scripted maker verifies in one iteration (answer.txt says 42). */
export function verifiedSpec(name: string): string {
  return `name: ${name}
goal: answer.txt says 42.
repo: ./repo
maker: { engine: scripted, turns: [{ write: { answer.txt: "42\\n" } }] }
gates: [{ id: done, kind: tests-pass, run: "grep -qx 42 answer.txt" }]
`;
}

/** A loop that fails its only iteration and stops with budget_exhausted (exit 3). */
export function exhaustedSpec(name: string, gateRun = "exit 1"): string {
  return `name: ${name}
goal: never done
repo: ./repo
maker: { engine: scripted, turns: [{ write: { note.txt: "tried\\n" } }] }
gates: [{ id: done, kind: tests-pass, run: ${JSON.stringify(gateRun)} }]
budget: { maxIterations: 1 }
`;
}
