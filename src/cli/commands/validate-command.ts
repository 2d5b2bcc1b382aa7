/** `validate [spec]`: the spec, its engines and commands, and the plan, without spending anything. */
import { SpecError } from "../../errors.ts";
import { describePlan, preflight } from "../../loop/preflight.ts";
import { loadSpecFile } from "../../loop/spec-file.ts";

export async function validateCommand(specArgument: string): Promise<number> {
  const loaded = await loadSpecFile(specArgument);
  const check = await preflight(loaded, specArgument);
  if (check.problems.length > 0 || !check.repoRoot || !check.baseSha) throw new SpecError(check.problems);
  process.stdout.write(
    `${specArgument}: valid\n${describePlan(loaded.spec, check.repoRoot, check.baseSha)}\n${check.warnings.map((warning) => `  warning: ${warning}\n`).join("")}`,
  );
  return 0;
}
