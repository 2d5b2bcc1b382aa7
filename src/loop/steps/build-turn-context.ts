/** The JSON context of a turn (see engines/turn-context.ts), from the state of the iteration it belongs to. */
import type { Role } from "../../core/engine.ts";
import type { TurnContext } from "../../engines/turn-context.ts";
import { countsAsPassed } from "../gate-assessment.ts";
import { type LoopState, phaseResults } from "../state.ts";

export function buildTurnContext(
  state: LoopState,
  iterationNumber: number,
  role: Role,
  loopName: string,
): TurnContext {
  const iteration = state.iterations.find((candidate) => candidate.number === iterationNumber);
  // The maker starts before its own gates run: it sees the results of the last graded iteration.
  const graded =
    role === "maker"
      ? state.iterations
          .filter(
            (candidate) =>
              candidate.number < iterationNumber && Object.keys(phaseResults(candidate, "grade")).length > 0,
          )
          .at(-1)
      : iteration;
  const grade = graded ? phaseResults(graded, "grade") : {};
  return {
    loop: loopName,
    iteration: iterationNumber,
    role,
    goal: state.spec.goal,
    baseSha: state.baseSha ?? "",
    sha: iteration?.commit?.sha ?? iteration?.startSha ?? "",
    diffPath: iteration?.screen?.diffPath,
    changedFiles: iteration?.screen?.changedFiles ?? [],
    protectedFiles: iteration?.screen?.protectedFiles ?? [],
    tamperFlags: role === "maker" ? [] : (iteration?.tamperFlags ?? []),
    gates: state.spec.gates.map((gate) => {
      const result = grade[gate.id];
      return {
        id: gate.id,
        kind: gate.kind,
        command: gate.run,
        assert: gate.assert,
        required: gate.required,
        exitCode: result?.exitCode,
        passed: result?.passed,
        accepted: graded && result ? countsAsPassed(gate, graded, state.baseline[gate.id]) : undefined,
        durationMs: result?.durationMs,
        logPath: result?.logPath,
        tail: result?.tail,
      };
    }),
  };
}
