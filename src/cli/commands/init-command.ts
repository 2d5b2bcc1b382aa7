/** `init [directory]`: write a commented loop.yaml from the project's detected commands. */
import { relative } from "node:path";
import { UsageError } from "../../errors.ts";
import { runInit } from "../../init/run-init.ts";

export async function initCommand(
  directory: string,
  options: { force?: boolean; output?: string; remove?: boolean; plugin?: string },
): Promise<number> {
  // `init claude` is hook mode; a project folder named claude is still `init ./claude`.
  if (directory === "claude") return (await import("./init-claude-command.ts")).initClaudeCommand(options);
  if (options.remove || options.plugin) throw new UsageError("--remove and --plugin go with `init claude`");
  const result = await runInit({ directory, force: options.force ?? false, output: options.output });
  const gates = result.detected.gates.map((gate) => `${gate.id}: ${gate.run}`);
  process.stdout.write(`wrote ${relative(process.cwd(), result.path) || result.path}\n`);
  for (const line of gates) process.stdout.write(`  gate ${line}\n`);
  if (gates.length === 0)
    process.stdout.write("  no test, build or lint command detected: add gates by hand\n");
  process.stdout.write("Edit the goal, then: loopwright validate && loopwright run\n");
  return 0;
}
