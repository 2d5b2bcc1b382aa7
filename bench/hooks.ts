/**
 * Hook mode's latency, from the build (dist/, what users install) and from the sources (development): `hook stop`, `hook prompt` and `hook pre-tool` (on every Bash call) as Claude Code runs them (the launcher `init claude`
 * writes, the hook's JSON on stdin, Node start included), when no gate runs: the work is open with a
 * changed file and its gate is already green at this state of the code. Baselines in the same run,
 * interleaved: `node -e ''` (Node's own start), and a bash hook that reads stdin and prints the same
 * JSON. Medians of 50. Target (build): `hook stop` and `hook prompt` ≤ 1.3× `node -e ''`.
 *
 * The review stays deferred through the 50 rounds (LOOPWRIGHT_HOOK_DEFER_TURNS: with the default 15,
 * the prompts of the rounds themselves would make it due and most stops would measure the block that
 * asks for a review instead). That block, one stop every 15 turns or so, has its own row, without target.
 */
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type BenchRow, type CliFrom, createBenchSandbox, formatMs, median } from "./support.ts";

const samples = 50;
const ratioTarget = 1.3;

export async function benchHooks(): Promise<BenchRow[]> {
  return [...(await hookRows("build")), ...(await hookRows("source"))];
}

async function hookRows(from: CliFrom): Promise<BenchRow[]> {
  const sandbox = await createBenchSandbox({ from });
  const column = from === "build" ? "build: dist/" : "source: src/*.ts";
  // The launcher runs bin/loopwright.js, which reads LOOPWRIGHT_FROM from this environment.
  const deferred = { ...sandbox.env, LOOPWRIGHT_HOOK_DEFER_TURNS: "1000000" };
  const time = (command: string, args: string[], input: string, cwd: string, env = deferred) =>
    timeProcess(command, args, input, cwd, env);
  try {
    const { repo } = sandbox;
    await writeFile(
      join(repo, "loop.yaml"),
      `name: bench\ngoal: add() adds.\nmaker: { engine: command, run: "true" }\ngates:\n  - { id: tests, kind: tests-pass, run: "grep -q 'a + b' math.js" }\n`,
    );
    await writeFile(join(repo, "math.js"), "export const add = (a, b) => a - b;\n");
    const init = await sandbox.cli(["init", "claude"]);
    if (init.code !== 0) throw new Error(`loopwright init claude failed:\n${init.output}`);
    await sandbox.git("add", "-A");
    await sandbox.git("commit", "-q", "-m", "hook mode");

    const launcher = join(repo, ".loopwright", "hook");
    const input = (extra: Record<string, unknown> = {}) =>
      JSON.stringify({ session_id: "bench", cwd: repo, ...extra });
    await writeFile(join(repo, "math.js"), "export const add = (a, b) => a + b;\n");
    const opened = await time(
      launcher,
      ["post-tool"],
      input({ tool_name: "Edit", tool_input: { file_path: join(repo, "math.js") } }),
      repo,
    );
    const stopOutput = JSON.stringify({});
    const promptOutput = (await time(launcher, ["prompt"], input(), repo)).stdout.trim();
    // The first stop runs the gate; from then on it is green at this state of the code.
    const first = await time(launcher, ["stop"], input(), repo);
    if (opened.stdout.trim() !== "{}" || first.stdout.trim() !== stopOutput)
      throw new Error(`unexpected hook answers: ${opened.stdout} ${first.stdout}`);
    const bashCall = input({ tool_name: "Bash", tool_input: { command: "npm test 2>&1 | tail -5" } });
    const bashHook = join(sandbox.root, "bash-hook.sh");
    await writeFile(
      bashHook,
      `#!/bin/bash\ninput=$(cat)\nprintf '%s\\n' '${promptOutput.replaceAll("'", "'\\''")}'\n`,
      {
        mode: 0o755,
      },
    );

    const stop: number[] = [];
    const due: number[] = [];
    const prompt: number[] = [];
    const guard: number[] = [];
    const bash: number[] = [];
    const node: number[] = [];
    const reviewDue = { ...sandbox.env, LOOPWRIGHT_HOOK_DEFER_TURNS: "1" };
    for (let sample = 0; sample < samples; sample++) {
      const stopped = await time(launcher, ["stop"], input(), repo);
      if (stopped.stdout.trim() !== stopOutput)
        throw new Error(`hook stop did not let Claude stop: ${stopped.stdout}`);
      stop.push(stopped.ms);
      due.push((await time(launcher, ["stop"], input(), repo, reviewDue)).ms);
      prompt.push((await time(launcher, ["prompt"], input(), repo)).ms);
      guard.push((await time(launcher, ["pre-tool"], bashCall, repo)).ms);
      bash.push((await time(bashHook, [], input(), repo)).ms);
      node.push((await time(process.execPath, ["-e", ""], "", repo)).ms);
    }
    const nodeMedian = median(node);
    const row = (name: string, values: number[], targeted: boolean): BenchRow => ({
      name: `${name} (${column})`,
      median: median(values),
      baselineName: "node -e ''",
      baselineMedian: nodeMedian,
      ratio: median(values) / nodeMedian,
      target: targeted && from === "build" ? `≤ ${ratioTarget}×` : "–",
      met: median(values) / nodeMedian <= ratioTarget,
      samples: values,
      baselineSamples: node,
      details: [],
    });
    const vsBash = (values: number[]) => `${(median(values) / median(bash)).toFixed(2)}× the bash hook`;
    const rows = [
      row("hook stop, no gate runs (launcher + Node)", stop, true),
      row("hook prompt, status lines (launcher + Node)", prompt, true),
      row("hook stop, review due: blocks, writes the review request (launcher + Node)", due, false),
      row("hook pre-tool, a Bash call (launcher + Node)", guard, false),
      row("bash hook: read stdin, print the JSON", bash, false),
    ];
    rows[0].details.push(
      `${vsBash(stop)} (${formatMs(median(bash))}); the work is open, its gate green at this state of the code`,
    );
    rows[1].details.push(`${vsBash(prompt)}; counts the turn under the state lock, lists the changed files`);
    rows[2].details.push(`${vsBash(due)}; git status and the diff for the request: two git processes`);
    return rows;
  } finally {
    await sandbox.cleanup();
  }
}

/** Runs `command args` with `input` on stdin; wall time from spawn to exit, and its stdout. */
function timeProcess(
  command: string,
  args: string[],
  input: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ ms: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    // No input (the `node -e ''` baseline, which reads none): no stdin pipe, which it may close unread.
    const child = spawn(command, args, {
      cwd,
      env,
      stdio: [input === "" ? "ignore" : "pipe", "pipe", "ignore"],
    });
    let stdout = "";
    child.stdout?.on("data", (chunk) => {
      stdout += chunk;
    });
    child.on("error", reject);
    // A hook that exits without reading stdin (a launcher that cannot find Node) fails the sample, not the run.
    child.stdin?.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`${command} ${args.join(" ")} exited ${code}`));
      else resolve({ ms: performance.now() - started, stdout });
    });
    child.stdin?.end(input);
  });
}
