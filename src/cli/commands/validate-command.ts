/**
 * `validate [spec]`: the spec, its engines and commands, and the plan, without spending anything. It
 * says which modes the spec serves: a loop (`run`, which needs a maker) and hook mode (`init claude`,
 * which needs only the goal and the gates).
 */

import { loadSpecFileForAnyMode } from "../../core/spec-file.ts";
import { SpecError } from "../../errors.ts";
import { describePlan, preflight } from "../../loop/preflight.ts";
import { primeSandboxAvailability } from "../../sandbox/sandbox-availability.ts";

export async function validateCommand(specArgument: string): Promise<number> {
  const anyMode = await loadSpecFileForAnyMode(specArgument);
  const { maker } = anyMode.spec;
  if (!maker) {
    const gates = anyMode.spec.gates.map(
      (gate) => `  gate ${gate.id} (${gate.kind}): ${gate.run ?? gate.assert}`,
    );
    process.stdout.write(
      [
        `${specArgument}: valid for hook mode only (\`loopwright init claude\`)`,
        "  loop mode (`loopwright run`): no, it needs a maker",
        ...gates,
        "",
      ].join("\n"),
    );
    return 0;
  }
  const loaded = { ...anyMode, spec: { ...anyMode.spec, maker } };
  // The sandbox probe (a process) runs while the repository is checked; the plan below needs it.
  const sandboxProbed = primeSandboxAvailability();
  const check = await preflight(loaded, specArgument);
  if (check.problems.length > 0 || !check.repoRoot || !check.baseSha) throw new SpecError(check.problems);
  await sandboxProbed;
  process.stdout.write(
    `${specArgument}: valid\n  modes: loop (\`loopwright run\`) and hook mode (\`loopwright init claude\`)\n${describePlan(loaded.spec, check.repoRoot, check.baseSha)}\n${check.warnings.map((warning) => `  warning: ${warning}\n`).join("")}`,
  );
  return 0;
}
