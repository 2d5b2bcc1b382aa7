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
 * Whether the bundle at `bundleUrl` is current: each module it holds (`modules`: path relative to it, and
 * its size in bytes when bundled) is there with that size. A rebuild of the modules alone (tsc without
 * the bundling step) or an edit of one (a patch of the installed package) changes sizes, and the commands
 * then run from the modules. Sizes, not times: npm's extraction, a git checkout and `cp` write the files
 * of one build with new times in their own order, and a clock set back gives a rebuilt module an older
 * time. A change that keeps every size (a digit for a digit) is not seen: hashing the ~80 modules would
 * cost ~3 ms of a command that takes ~60 ms.
 */
export function bundleIsCurrent(bundleUrl: string, modules: Readonly<Record<string, number>>): boolean {
  // Paths joined as text, not URLs: a URL each is most of what this allocates, and a command that stays
  // under the young generation's first size ends without a garbage collection.
  const folder = dirname(fileURLToPath(bundleUrl));
  return Object.entries(modules).every(
    ([module, size]) => statSync(join(folder, module), { throwIfNoEntry: false })?.size === size,
  );
}
