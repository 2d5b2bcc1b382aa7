/** One turn of the `scripted` engine (scripted-engine.ts): the script's steps, played in their fixed order. */
import { appendFile, lstat, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { TurnRequest, TurnResult } from "../core/engine.ts";
import { createRedactor } from "../core/redact.ts";
import type { ScriptedTurn } from "../core/spec.ts";
import { git } from "../git/git.ts";
import { runCommand } from "../process/run-command.ts";
import { isQuotable } from "../verify/evidence-check.ts";
import type { TurnContext } from "./turn-context.ts";

export async function playTurn(turns: ScriptedTurn[], request: TurnRequest): Promise<TurnResult> {
  const turn = turns[Math.min(request.turnNumber, turns.length) - 1];
  if (!turn) return { status: "completed", text: "(the script has no turns)" };
  const context = request.context as unknown as TurnContext;
  const fill = (text: string) => text.replaceAll("{{iteration}}", String(context.iteration));
  const started = Date.now();
  const said: string[] = [];
  try {
    for (const path of turn.delete ?? [])
      await rm(inside(request.cwd, path), { recursive: true, force: true });
    for (const [path, content] of Object.entries(turn.write ?? {})) {
      const target = inside(request.cwd, path);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, fill(content));
    }
    for (const [path, content] of Object.entries(turn.append ?? {})) {
      const target = inside(request.cwd, path);
      await mkdir(dirname(target), { recursive: true });
      await appendFile(target, fill(content));
    }
    for (const command of turn.run ?? []) {
      const outcome = await runCommand({
        command,
        cwd: request.cwd,
        env: { ...request.env, LOOPWRIGHT_ROLE: request.role },
        timeoutMs: remaining(request, started),
        signal: request.signal,
        logPath: join(request.turnDirectory, `${request.role}.log`),
        appendLog: true,
        redact: createRedactor({ ...process.env, ...request.env }),
        runId: request.runId,
        stepId: request.stepId,
      });
      if (outcome.cancelled) return { status: "cancelled", text: said.join("\n") };
      if (outcome.timedOut) return { status: "timeout", text: said.join("\n") };
      if (outcome.exitCode !== 0) {
        return {
          status: "crashed",
          text: said.join("\n"),
          error: `scripted command \`${command}\` exited ${outcome.exitCode}`,
        };
      }
    }
    if (turn.sleep) {
      const limit = request.wallClockMs > 0 ? Math.min(turn.sleep, remaining(request, started)) : turn.sleep;
      try {
        await sleep(limit, undefined, { signal: request.signal });
      } catch {
        return { status: "cancelled", text: said.join("\n") };
      }
      if (limit < turn.sleep) return { status: "timeout", text: said.join("\n") };
    }
  } catch (error) {
    return { status: "crashed", text: said.join("\n"), error: (error as Error).message };
  }
  if (turn.say) said.push(fill(turn.say));
  let output = turn.print !== undefined ? fill(turn.print) : undefined;
  if (turn.verdict !== undefined) {
    const citation =
      turn.verdict === "auto" ? await citableFile(request.cwd, context.changedFiles) : undefined;
    output = JSON.stringify(scriptedVerdict(turn.verdict, context, citation));
  }
  if (turn.replan) output = JSON.stringify(turn.replan);
  const text = said.join("\n");
  if (turn.exit !== undefined && turn.exit !== 0) {
    return {
      status: "crashed",
      text,
      output,
      exitCode: turn.exit,
      error: `scripted turn exited with code ${turn.exit}`,
    };
  }
  const overBudget = request.maxCostUsd > 0 && (turn.costUsd ?? 0) > request.maxCostUsd;
  return {
    status: overBudget ? "over_budget" : "completed",
    text,
    output: output ?? text,
    exitCode: 0,
    // A scripted turn costs what its script says, and nothing otherwise: its cost is known.
    costUsd: turn.costUsd ?? 0,
  };
}

function remaining(request: TurnRequest, started: number): number {
  if (request.wallClockMs <= 0) return 0;
  return Math.max(1, request.wallClockMs - (Date.now() - started));
}

/** Resolves a script path inside the worktree; a path that escapes it is an error. */
function inside(root: string, path: string): string {
  const target = resolve(root, path);
  const relativePath = relative(root, target);
  if (relativePath.startsWith("..") || resolve(root, relativePath) !== target) {
    throw new Error(`scripted path escapes the worktree: ${path}`);
  }
  return target;
}

/**
 * `auto` rules on each gate from its recorded result (deterministic gates by whether it counts as passed,
 * exit 0 or under the gate's baseline and flaky policies, quoting a line of their output that says
 * enough to be evidence, or else citing `citation`; agent-checks approved, citing `citation`) and rules
 * every tamper flag illegitimate; `reject` fails every gate; an object is printed as given. With nothing
 * to cite, a gate is not approved: a scripted verifier cites real files and output like any other.
 */
function scriptedVerdict(
  verdict: NonNullable<ScriptedTurn["verdict"]>,
  context: TurnContext,
  citation: { file: string; line: number } | undefined,
): unknown {
  if (typeof verdict === "object") return verdict;
  const rulings = context.gates.map((gate) => {
    if (verdict === "reject")
      return { id: gate.id, passed: false, reason: "rejected by the script", evidence: [] };
    if (gate.kind === "agent-check") {
      return citation
        ? { id: gate.id, passed: true, reason: "scripted approval", evidence: [citation] }
        : { id: gate.id, passed: false, reason: "no changed file to cite", evidence: [] };
    }
    const lines = (gate.tail ?? "").split("\n").filter(isQuotable);
    const quote = lines.findLast((line) => /\b(pass|passed|ok)\b|✓|✔/i.test(line)) ?? lines.at(-1);
    const evidence = quote ? [{ gate: gate.id, quote: quote.trim() }] : citation ? [citation] : [];
    if ((gate.accepted ?? gate.passed) && evidence.length > 0) return { id: gate.id, passed: true, evidence };
    if (gate.accepted ?? gate.passed)
      return { id: gate.id, passed: false, reason: "nothing to cite as evidence", evidence: [] };
    return { id: gate.id, passed: false, reason: `exit code ${gate.exitCode}`, evidence: [] };
  });
  const required = new Set(context.gates.filter((gate) => gate.required).map((gate) => gate.id));
  const overall = rulings.filter((ruling) => required.has(ruling.id)).every((ruling) => ruling.passed)
    ? "pass"
    : "fail";
  // A rehearsal cannot judge whether weakening a check was legitimate: every flag is ruled against.
  const tamper = (context.tamperFlags ?? []).map((flag) => ({
    id: flag.id,
    legitimate: false,
    reason: "a scripted verifier cannot judge a change to a check; a person or an agent verifier must",
  }));
  const approves = overall === "pass" && tamper.length === 0 && verdict !== "reject";
  return { overall: approves ? "pass" : "fail", gates: rulings, tamper, notes: "scripted verdict" };
}

/**
 * A file the verifier can cite at line 1: the first changed file that is a non-empty regular file of
 * the graded checkout (`cwd`), else the first such file git tracks there.
 */
async function citableFile(
  cwd: string,
  changedFiles: readonly string[],
): Promise<{ file: string; line: number } | undefined> {
  const tracked = await git(["ls-files", "-z"], cwd).catch(() => "");
  const candidates = [...changedFiles, ...tracked.split("\0").filter(Boolean).slice(0, 200)];
  for (const file of candidates) {
    const path = resolve(cwd, file);
    const status = await lstat(path).catch(() => undefined);
    if (!status?.isFile() || status.size === 0) continue;
    const text = await readFile(path, "utf8").catch(() => "");
    if (text.trim() !== "") return { file, line: 1 };
  }
  return undefined;
}
