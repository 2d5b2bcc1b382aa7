/** `init [directory]`: write a commented loop.yaml from the project's detected commands. */
import { relative } from "node:path";
import { runInit } from "../../init/run-init.ts";

export async function initCommand(
  directory: string,
  options: { force?: boolean; output?: string },
): Promise<number> {
  const result = await runInit({ directory, force: options.force ?? false, output: options.output });
  const gates = result.detected.gates.map((gate) => `${gate.id}: ${gate.run}`);
  process.stdout.write(`wrote ${relative(process.cwd(), result.path) || result.path}\n`);
  for (const line of gates) process.stdout.write(`  gate ${line}\n`);
  if (gates.length === 0)
    process.stdout.write("  no test, build or lint command detected: add gates by hand\n");
  process.stdout.write("Edit the goal, then: loopwright validate && loopwright run\n");
  return 0;
}
