/**
 * The read-only commands' entry: `ls`, `show <loop>` and `validate [spec]` in their plain forms
 * (read-commands.ts), run without commander, their output written directly (output.ts) and their errors
 * worded as every command's (report-error.ts). bin/loopwright.js runs it from dist/ as one bundled file
 * (scripts/bundle-read-commands.ts): Node loads one module instead of the 30 to 80 these commands load
 * (most of their cost over a bare `node -e 0`). main.ts runs the same forms the same way from the modules.
 */
import { fileURLToPath } from "node:url";
import { type BundleManifest, bundleIsCurrent as bundleModulesUnchanged } from "../files/bundle-freshness.ts";
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
 * Whether the bundle at `bundleUrl` is current: each module it holds (`manifest`: path relative to it,
 * its size in bytes when bundled, a digest of their contents) holds what it held
 * (files/bundle-freshness.ts). A rebuild of the modules alone (tsc without the bundling step) or an edit
 * of one (a patch of the installed package), even one that keeps its size, leaves the commands to the
 * modules.
 */
export function bundleIsCurrent(bundleUrl: string, manifest: BundleManifest): boolean {
  return bundleModulesUnchanged(fileURLToPath(bundleUrl), manifest);
}
