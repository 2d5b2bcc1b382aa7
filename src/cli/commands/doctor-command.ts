/**
 * `doctor`: which engines are installed, their versions, credentials, providers and cost reporting, and
 * whether turns run in the operating-system sandbox, and the forge of the repository in the current
 * folder (remote, API, token; see forge-doctor.ts).
 */

import { loadSpecFileForAnyMode } from "../../core/spec-file.ts";
import { checkEngines } from "../../engines/engine-doctor.ts";
import { unsandboxedWarning } from "../../engines/engine-notes.ts";
import { checkForge } from "../../forge/forge-doctor.ts";
import { sandboxAvailabilityNow } from "../../sandbox/sandbox-availability.ts";

const costWords: Record<string, string> = {
  live: "cost watched live",
  "end-of-turn": "cost known at the end of each turn",
  none: "reports no cost: budgets not enforced",
};

export async function doctorCommand(options: { json?: boolean; spec?: string }): Promise<number> {
  const checks = await checkEngines();
  if (options.json) {
    process.stdout.write(`${JSON.stringify(checks, null, 2)}\n`);
    return 0;
  }
  process.stdout.write(`node ${process.version}\n`);
  for (const check of checks) {
    if (!check.installed) {
      process.stdout.write(`✗ ${check.engine}: not installed (npm install -g ${check.packageName})\n`);
      continue;
    }
    const credentials = check.credentials.length > 0 ? check.credentials.join(", ") : "none found";
    process.stdout.write(
      `✓ ${check.engine} ${check.version} at ${check.path}\n    provider ${check.provider}; credentials: ${credentials}; ${costWords[check.costReporting] ?? check.costReporting}\n`,
    );
  }
  process.stdout.write("✓ command, scripted: built in\n");
  // With --spec, the spec's finish settings (forge, API, repository, CI watch) are what is checked.
  const finish = options.spec ? (await loadSpecFileForAnyMode(options.spec)).spec.finish : undefined;
  const forge = await checkForge(process.cwd(), finish);
  process.stdout.write(`${forge.ok ? "✓" : "✗"} ${forge.line}\n`);
  for (const warning of forge.warnings) process.stdout.write(`  warning: ${warning}\n`);
  const sandbox = sandboxAvailabilityNow();
  process.stdout.write(
    sandbox.available
      ? "✓ sandbox: bubblewrap (verifiers read-only, makers write only their worktree and temp, no process outlives a turn)\n"
      : `✗ sandbox: ${unsandboxedWarning(sandbox.reason)}\n`,
  );
  return 0;
}
