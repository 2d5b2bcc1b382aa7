/**
 * The read-only commands' entry: `ls`, `show <loop>` and `validate [spec]` in their plain forms
 * (read-commands.ts), run without commander, their output written directly (output.ts) and their errors
 * worded as every command's (report-error.ts). bin/loopwright.js runs it from dist/ as one bundled file
 * (scripts/bundle-read-commands.ts): Node loads one module instead of the 30 to 80 these commands load
 * (most of their cost over a bare `node -e 0`). main.ts runs the same forms the same way from the modules.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { statSync } from "../files/node-fs.ts";
import { writeErr } from "./output.ts";
import { parseReadCommand } from "./read-commands.ts";
import { reportError } from "./report-error.ts";

/** Runs `argv` and resolves to its exit code when it is a read-only command's plain form; else undefined. */
export function readOnlyMain(argv: readonly string[]): Promise<number> | undefined {
  const read = parseReadCommand(argv);
  if (!read) return undefined;
  return (async () => {
    try {
      const action = await read.form.load();
      return (await action(...(read.values as never[]))) ?? 0;
    } catch (error) {
      return reportError(error, writeErr);
    }
  })();
}

/**
 * Whether the bundle at `bundleUrl` is current: no module it holds (`modules`, relative to it) was
 * written after it, and each is still there. A rebuild of the modules alone (tsc without the bundling
 * step) makes it stale: the commands then run from the modules, as they are now. Files of one install
 * share their time (npm sets one), which counts as current.
 */
export function bundleIsCurrent(bundleUrl: string, modules: readonly string[]): boolean {
  // Paths joined as text, not URLs: a URL each is most of what this allocates, and a command that stays
  // under the young generation's first size ends without a garbage collection.
  const bundle = fileURLToPath(bundleUrl);
  const built = statSync(bundle, { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined) return false;
  const folder = dirname(bundle);
  return modules.every((module) => {
    const written = statSync(join(folder, module), { throwIfNoEntry: false })?.mtimeMs;
    return written !== undefined && written <= built;
  });
}
