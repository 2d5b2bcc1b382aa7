/**
 * `demo`: a real loop, end to end, with no API key: the sample project is copied into a temporary git
 * repository and a scripted maker fixes its failing test while every phase prints live. Its state lives
 * in that temporary folder too, so the demo leaves nothing behind (unless --keep).
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { loadSpecFile } from "../../core/spec-file.ts";
import {
  type RehearsalEngine,
  rehearsalEngines,
  rehearsalScript,
  rehearsalSpec,
  rehearsalVerifier,
} from "../../demo/rehearsal.ts";
import { sampleFiles, sampleSpec } from "../../demo/sample-project.ts";
import { SpecError, UsageError } from "../../errors.ts";
import { createLoop } from "../../loop/create-loop.ts";
import { preflight } from "../../loop/preflight.ts";
import { renderReport } from "../../loop/report.ts";
import { readState } from "../../loop/timeline.ts";
import { mockClientEnvironment } from "../../mock-model/client-environment.ts";
import { type MockModel, startMockModel } from "../../mock-model/server.ts";
import { openStore } from "../../store/open-store.ts";
import { runInForeground } from "./run-loop-command.ts";

const run = promisify(execFile);

export async function demoCommand(options: {
  json?: boolean;
  keep?: boolean;
  engine?: string;
}): Promise<number> {
  const engine = options.engine;
  if (engine !== undefined && !rehearsalEngines.includes(engine as RehearsalEngine)) {
    throw new UsageError(`--engine: one of ${rehearsalEngines.join(", ")} (got '${engine}')`);
  }
  const root = await mkdtemp(join(tmpdir(), "loopwright-demo-"));
  const project = join(root, "project");
  let server: MockModel | undefined;
  try {
    for (const [path, content] of Object.entries(sampleFiles)) {
      await mkdir(dirname(join(project, path)), { recursive: true });
      await writeFile(join(project, path), content);
    }
    const identity = ["-c", "user.name=loopwright demo", "-c", "user.email=demo@loopwright.invalid"];
    await run("git", ["init", "-q", "-b", "main"], { cwd: project });
    await run("git", ["add", "-A"], { cwd: project });
    await run(
      "git",
      [...identity, "commit", "-q", "--no-verify", "-m", "sample project with a failing test"],
      { cwd: project },
    );
    const specPath = join(root, "loop.yaml");
    if (engine) {
      // A rehearsal: the real CLIs, pointed at a scripted model on loopback with homes of their own.
      const maker = engine as RehearsalEngine;
      server = await startMockModel({ script: rehearsalScript(maker) });
      Object.assign(process.env, await mockClientEnvironment(server.url, join(root, "cli-home")));
      await writeFile(specPath, rehearsalSpec(maker));
      if (!options.json) {
        process.stdout.write(
          `demo: ${maker} makes, ${rehearsalVerifier(maker)} verifies; scripted model at ${server.url}\n`,
        );
      }
    } else {
      await writeFile(specPath, sampleSpec);
    }
    if (!options.json) process.stdout.write(`demo: sample project in ${project}; spec ${specPath}\n`);

    const loaded = await loadSpecFile(specPath);
    const check = await preflight(loaded, specPath);
    if (check.problems.length > 0 || !check.repoRoot || !check.baseSha) throw new SpecError(check.problems);
    const home = join(root, "state");
    const store = await openStore(home);
    try {
      const loop = await createLoop(store, loaded, check.repoRoot, check.baseSha);
      const exitCode = await runInForeground({ home, store }, loop, "run", options.json ?? false);
      if (!options.json) {
        const { state, events } = await readState(store, loop);
        process.stdout.write(`\n${renderReport(state, events)}`);
      }
      return exitCode;
    } finally {
      await store.close();
    }
  } finally {
    await server?.close();
    if (options.keep) process.stdout.write(`demo kept in ${root} (LOOPWRIGHT_HOME=${join(root, "state")})\n`);
    else await rm(root, { recursive: true, force: true });
  }
}
