/**
 * `validate [spec]`: the spec, its engines and commands, and the plan, without spending anything. It
 * says which modes the spec serves: a loop (`run`, which needs a maker) and hook mode (`init claude`,
 * which needs only the goal and the gates). The sandbox probe (a process; the plan names the sandbox)
 * starts before the spec reader and preflight are loaded (most of the command's modules), so the two
 * overlap; a spec for hook mode only does not need its answer. A spec validated before and unchanged
 * since is read from the spec cache (core/spec-cache.ts): no YAML parser, no schema library; and a
 * base `HEAD` that git confirmed before is read from files (git/verified-head.ts): no git process.
 */

import { SpecError } from "../../errors.ts";
import { loopwrightHome } from "../../paths.ts";
import { primeSandboxAvailability } from "../../sandbox/sandbox-availability.ts";
import { writeOut } from "../output.ts";

export async function validateCommand(specArgument: string): Promise<number> {
  // The probe never rejects: it settles with the sandbox's availability, cached for this process.
  const sandboxProbed = primeSandboxAvailability();
  const [{ loadSpecFileForAnyModeCached }, { repositoryCommitAt }, verified] = await Promise.all([
    import("../../core/spec-cache.ts"),
    import("../../git/repository.ts"),
    import("../../git/verified-head.ts"),
  ]);
  const anyMode = await loadSpecFileForAnyModeCached(specArgument);
  const { maker } = anyMode.spec;
  if (!maker) {
    const gates = anyMode.spec.gates.map(
      (gate) => `  gate ${gate.id} (${gate.kind}): ${gate.run ?? gate.assert}`,
    );
    writeOut(
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
  // A HEAD git confirmed before is read from files (verified-head.ts); else preflight's first git
  // process starts now and runs while preflight's modules load (an import loads its module graph
  // before it returns), and its answer is kept for the next time.
  const home = loopwrightHome();
  const usualCase = verified
    .verifiedHeadAt(loaded.repoPath, loaded.spec.base, home)
    .then(async (known) => {
      if (known) return known;
      const answer = await repositoryCommitAt(loaded.repoPath, loaded.spec.base);
      // Kept once the answer is on its way: the command does not wait for the write.
      if (answer && loaded.spec.base === "HEAD")
        setImmediate(() => verified.rememberVerifiedCommit(home, answer));
      return answer;
    })
    .catch(() => undefined);
  const { describePlan, preflight } = await import("../../loop/preflight.ts");
  const check = await preflight(loaded, specArgument, usualCase);
  if (check.problems.length > 0 || !check.repoRoot || !check.baseSha) throw new SpecError(check.problems);
  await sandboxProbed;
  writeOut(
    `${specArgument}: valid\n  modes: loop (\`loopwright run\`) and hook mode (\`loopwright init claude\`)\n${describePlan(loaded.spec, check.repoRoot, check.baseSha)}\n${check.warnings.map((warning) => `  warning: ${warning}\n`).join("")}`,
  );
  return 0;
}
