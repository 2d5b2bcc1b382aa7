/**
 * An in-memory builder of a loop's timeline for testing the pure core: each method appends the event the
 * runner would append for one step, and `state()` / `decide()` replay the list exactly as the controller
 * does. No IO: `new FakeLoop().prepared().iteration().makerEnded().committed().screened().gateFailed("lint")`.
 */

import type {
  EventPayloads,
  EventType,
  GatePhase,
  IterationOutcome,
  LoopEvent,
  MakerStatus,
  StopReason,
} from "../../src/core/events.ts";
import { type Spec, specSchema } from "../../src/core/spec.ts";
import { type Action, decide } from "../../src/loop/decide.ts";
import { currentIteration, type IterationState, type LoopState, replay } from "../../src/loop/state.ts";
import { applySteering, type SteerInput, validateSteerRequest } from "../../src/loop/steering.ts";

/** A parsed spec with every default filled in: two deterministic gates (`tests`, `lint`) unless overridden. */
export function fakeSpec(overrides: Record<string, unknown> = {}): Spec {
  const parsed = specSchema.parse({
    name: "fix-parser",
    goal: "The parser tests pass.\n",
    maker: { engine: "command", run: "./agent.sh" },
    verifier: { engine: "command", run: "./verify.sh" },
    gates: [
      { id: "tests", kind: "tests-pass", run: "node --test" },
      { id: "lint", kind: "lint-clean", run: "npx biome check" },
    ],
    ...overrides,
  });
  if (!parsed.maker) throw new Error("a fake loop's spec needs a maker");
  return { ...parsed, maker: parsed.maker, branch: parsed.branch ?? `loop/${parsed.name}` };
}

const baseSha = "b".repeat(40);
const fixedTime = "2030-01-01T00:00:00.000Z";

export class FakeLoop {
  readonly spec: Spec;
  readonly events: LoopEvent[] = [];

  constructor(spec: Spec = fakeSpec()) {
    this.spec = spec;
    this.append("loop_created", {
      name: spec.name,
      repoRoot: "/repo",
      specPath: "/repo/loop.yaml",
      baseSha,
      branch: spec.branch,
    });
    this.append("run_started", { runId: "run-1", pid: 1, host: "test", command: "run" });
  }

  /** Appends one event as the store would: the next sequence number, a fixed time. */
  append<K extends EventType>(type: K, data: EventPayloads[K]): this {
    this.events.push({ type, seq: this.events.length + 1, at: fixedTime, data } as LoopEvent);
    return this;
  }

  state(): LoopState {
    return replay(this.spec, this.events);
  }

  decide(): Action {
    return decide(this.state());
  }

  /** The iteration in progress; throws when there is none (a mistake in the test). */
  private current(): IterationState {
    const iteration = currentIteration(this.state());
    if (!iteration) throw new Error("FakeLoop: no iteration in progress");
    return iteration;
  }

  /**
   * The worktrees are ready and the base commit's gates have run: all green, unless `baseline` names the
   * tests that already fail there, per gate.
   */
  prepared(options: { baseline?: Record<string, string[]>; counts?: Record<string, number> } = {}): this {
    this.append("loop_prepared", {
      makerWorktree: "/home/maker",
      gateWorktree: "/home/gates",
      baseSha,
    });
    return this.baselined(options);
  }

  /** The base commit's run of every deterministic gate that has none yet (e.g. one added by steering). */
  baselined(options: { baseline?: Record<string, string[]>; counts?: Record<string, number> } = {}): this {
    for (const gate of this.state().spec.gates) {
      if (gate.kind === "agent-check" || this.state().baseline[gate.id]) continue;
      const failures = options.baseline?.[gate.id] ?? [];
      this.gateEnded(gate.id, "baseline", {
        passed: failures.length === 0,
        exitCode: failures.length === 0 ? 0 : 1,
        tail: failures.join("\n"),
        failures,
        testsExecuted: options.counts?.[gate.id],
      });
    }
    return this;
  }

  /** Starts the next iteration with the brief the controller would send. */
  iteration(brief = "the brief"): this {
    const number = (this.state().iterations.at(-1)?.number ?? 0) + 1;
    return this.append("iteration_started", {
      iteration: number,
      startSha: this.state().iterations.at(-1)?.commit?.sha ?? baseSha,
      brief,
      briefPath: `/home/iterations/${number}/brief.md`,
    });
  }

  makerStarted(): this {
    const iteration = this.current();
    return this.append("maker_started", {
      iteration: iteration.number,
      attempt: iteration.makerAttempts + 1,
      turnNumber: iteration.number,
    });
  }

  /** The maker's turn (started and ended). `account` becomes the approach in later briefs. */
  makerEnded(
    status: MakerStatus = "completed",
    options: { account?: string; error?: string; costUsd?: number } = {},
  ): this {
    this.makerStarted();
    return this.append("maker_ended", {
      iteration: this.current().number,
      status,
      account: options.account ?? `attempt ${this.current().number}`,
      error: options.error,
      exitCode: status === "completed" ? 0 : null,
      durationMs: 1000,
      costUsd: options.costUsd,
    });
  }

  committed(files: string[] = ["src/parse.ts"]): this {
    const number = this.current().number;
    return this.append("commit_created", {
      iteration: number,
      sha: `${String(number).padStart(2, "0")}${"c".repeat(38)}`,
      committed: true,
      files,
    });
  }

  /** The scope screen; `diff` stands for the normalized diff's hash (same text = same change). */
  screened(
    options: { diff?: string; violations?: { file: string; rule: string }[]; protectedFiles?: string[] } = {},
  ): this {
    const iteration = this.current();
    return this.append("change_screened", {
      iteration: iteration.number,
      sha: iteration.commit?.sha ?? "",
      changedFiles: iteration.commit?.files ?? [],
      scopeViolations: options.violations ?? [],
      protectedFiles: options.protectedFiles ?? [],
      diffHash: options.diff ?? `diff of iteration ${iteration.number}`,
      diffPath: `/home/iterations/${iteration.number}/diff.patch`,
    });
  }

  gatePassed(id: string, phase: GatePhase = "grade", options: { testsExecuted?: number } = {}): this {
    return this.gateEnded(id, phase, { passed: true, exitCode: 0, tail: `ok - ${id}`, ...options });
  }

  /** A tamper flag on the current iteration, as the screen records it (`T1`, `T2`, ... unless `id` is given). */
  flagged(kind: string, options: { id?: string; file?: string; line?: number; detail?: string } = {}): this {
    const iteration = this.current();
    const flag = {
      id: options.id ?? `T${iteration.tamperFlags.length + 1}`,
      kind,
      file: options.file,
      line: options.line,
      detail: options.detail ?? `${kind} found`,
    };
    return this.append("tamper_flagged", { iteration: iteration.number, flag });
  }

  gateFailed(
    id: string,
    options: {
      phase?: GatePhase;
      exitCode?: number | null;
      tail?: string;
      timedOut?: boolean;
      failures?: string[];
      testsExecuted?: number;
      /** A red graded gate is run again (`recheck`); by default it fails again there. */
      recheck?: "fail" | "pass" | "none";
    } = {},
  ): this {
    const phase = options.phase ?? "grade";
    const outcome = {
      passed: false,
      exitCode: options.exitCode === undefined ? 1 : options.exitCode,
      tail: options.tail ?? `not ok - ${id}`,
      timedOut: options.timedOut ?? false,
      failures: options.failures,
      testsExecuted: options.testsExecuted,
    };
    this.gateEnded(id, phase, outcome);
    const recheck = options.recheck ?? "fail";
    if (phase !== "grade" || recheck === "none") return this;
    return recheck === "fail" ? this.gateEnded(id, "recheck", outcome) : this.gatePassed(id, "recheck");
  }

  /** Every deterministic gate of the current spec passes in `phase`, except those already recorded. */
  gatesPassed(phase: GatePhase = "grade"): this {
    const iteration = this.current();
    for (const gate of this.state().spec.gates) {
      if (gate.kind !== "agent-check" && !iteration.gates[phase]?.[gate.id]) this.gatePassed(gate.id, phase);
    }
    return this;
  }

  private gateEnded(
    id: string,
    phase: GatePhase,
    outcome: {
      passed: boolean;
      exitCode: number | null;
      tail: string;
      timedOut?: boolean;
      failures?: string[];
      testsExecuted?: number;
    },
  ): this {
    // Between iterations, a run is on the base commit (iteration 0): the baseline, or a strategy's extra runs.
    const onBase = phase === "baseline" || !currentIteration(this.state());
    const number = onBase ? 0 : this.current().number;
    const gate = this.state().spec.gates.find((candidate) => candidate.id === id);
    if (!gate) throw new Error(`FakeLoop: no gate ${id} in the spec`);
    const sha = onBase ? baseSha : (this.current().commit?.sha ?? "");
    this.append("gate_started", { iteration: number, gateId: id, phase, sha });
    return this.append("gate_ended", {
      iteration: number,
      result: {
        id,
        kind: gate.kind,
        command: gate.run ?? "",
        phase,
        sha,
        exitCode: outcome.exitCode,
        passed: outcome.passed,
        timedOut: outcome.timedOut ?? false,
        durationMs: 10,
        logPath: `/home/iterations/${number}/${id}-${phase}.log`,
        tail: outcome.tail,
        survivorsKilled: 0,
        failures: outcome.failures ?? [],
        ...(outcome.testsExecuted === undefined ? {} : { testsExecuted: outcome.testsExecuted }),
      },
    });
  }

  /** A ruled verdict over every gate of the spec; a `fail` rejects `rejected` (default: the first gate). */
  verifierRuled(overall: "pass" | "fail", options: { rejected?: string[]; notes?: string } = {}): this {
    const gates = this.state().spec.gates;
    const rejected = overall === "fail" ? (options.rejected ?? gates.slice(0, 1).map((gate) => gate.id)) : [];
    return this.verifierEnded("ruled", {
      verdict: {
        overall,
        gates: gates.map((gate) =>
          rejected.includes(gate.id)
            ? { id: gate.id, passed: false, reason: `${gate.id} is not met`, evidence: [] }
            : { id: gate.id, passed: true, evidence: [{ file: "src/parse.ts", line: 1 }] },
        ),
        notes: options.notes,
      },
    });
  }

  verifierEnded(
    status: EventPayloads["verifier_ended"]["status"],
    options: Partial<EventPayloads["verifier_ended"]> = {},
  ): this {
    const iteration = this.current();
    this.append("verifier_started", {
      iteration: iteration.number,
      sha: iteration.commit?.sha ?? "",
      turnNumber: 1,
    });
    return this.append("verifier_ended", {
      iteration: iteration.number,
      status,
      wroteFiles: [],
      durationMs: 100,
      ...options,
    });
  }

  /** Asks `decide()` for the end of the iteration and appends exactly what it says. */
  endIteration(): this {
    const action = this.decide();
    if (action.kind !== "end_iteration") {
      throw new Error(`FakeLoop: expected decide() to end the iteration, got ${JSON.stringify(action)}`);
    }
    const { kind: _kind, ...ended } = action;
    return this.append("iteration_ended", ended);
  }

  /** Records an iteration's end as given, whatever decide() would say: for states decide never builds. */
  iterationEnded(ended: {
    outcome: IterationOutcome;
    failingGates?: string[];
    fingerprint?: string;
    repeat?: boolean;
  }): this {
    return this.append("iteration_ended", {
      iteration: this.current().number,
      failingGates: ended.failingGates ?? [],
      fingerprint: ended.fingerprint,
      repeat: ended.repeat ?? false,
      outcome: ended.outcome,
      summary: `ended: ${ended.outcome}`,
    });
  }

  /**
   * A whole iteration with a completed maker whose change is `diff`: the `failing` gates go red, the
   * others green; with nothing failing the verifier approves and the confirmation re-run is green.
   */
  attempt(options: { diff?: string; failing?: string[]; account?: string } = {}): this {
    this.iteration().makerEnded("completed", { account: options.account }).committed();
    this.screened({ diff: options.diff });
    for (const id of options.failing ?? []) this.gateFailed(id);
    this.gatesPassed();
    if ((options.failing ?? []).length === 0) this.verifierRuled("pass").gatesPassed("confirm");
    return this.endIteration();
  }

  /** An iteration lost to the environment: the maker crashed. */
  infraError(): this {
    return this.iteration().makerEnded("crashed", { error: "exit 137" }).committed().endIteration();
  }

  replanned(approach: string, hypotheses: string[] = []): this {
    const afterIteration = this.state().iterations.at(-1)?.number ?? 0;
    this.append("replan_started", { iteration: afterIteration, turnNumber: 1 });
    return this.append("replan_ended", {
      iteration: afterIteration,
      status: "completed",
      approach,
      hypotheses,
    });
  }

  /** Files a steer as the `steer` command does: validated and parsed against the spec it will apply to. */
  steered(input: SteerInput): this {
    const state = this.state();
    const pending = applySteering(state.spec, state.pendingSteers).spec;
    return this.append("steer_requested", { request: validateSteerRequest(pending, input) });
  }

  /** Applies the pending steering requests as the runner does. */
  steeringApplied(): this {
    const state = this.state();
    const { spec, changes } = applySteering(state.spec, state.pendingSteers);
    return this.append("steering_applied", { changes, spec });
  }

  pauseRequested(): this {
    return this.append("pause_requested", {});
  }

  cancelRequested(): this {
    return this.append("cancel_requested", {});
  }

  paused(): this {
    return this.append("loop_paused", {});
  }

  resumed(): this {
    return this.append("loop_resumed", {});
  }

  stopped(reason: StopReason, message = reason): this {
    return this.append("loop_stopped", { reason, message });
  }

  finished(): this {
    const sha = this.state().iterations.at(-1)?.commit?.sha ?? baseSha;
    return this.append("loop_finished", { action: "branch", branch: this.spec.branch, sha, pushed: false });
  }
}
