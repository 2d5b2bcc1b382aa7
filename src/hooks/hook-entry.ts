/**
 * The hook launcher's own entry into the built package: `npm run build` bundles this module with the
 * code cache's (files/code-cache-file.ts) into `dist/hooks/hook-entry.cjs` (scripts/bundle-hook-path.ts),
 * a CommonJS script the launcher execs Node on instead of bin/loopwright.js when it is there. Why: an
 * ES module entry costs Node its ESM loader (resolving the entry, reading package.json for its "type",
 * linking) and bin/loopwright.js then imports the code cache's module through it: ~2 ms of CPU a
 * hook (perf stat, 30 stops: 29.1 → 26.9 ms of task-clock against 20.7 for `node -e ''`), which on a
 * loaded 2-core machine is wall time.
 *
 * It runs the hook bundle exactly as bin/loopwright.js does, and hands everything else to
 * bin/loopwright.js itself, which then decides as it always did: a Node older than 24 (answered in
 * JSON there), sources to run (LOOPWRIGHT_FROM=src, or unset in a checkout that has src/), an unknown
 * LOOPWRIGHT_FROM, a bundle that is missing or does not load.
 *
 * Builtins come from process.getBuiltinModule (see node-fs.ts); nothing here runs before the checks
 * that need a Node that has it.
 */
import { nameHash, readCodeCache, writeCodeCache } from "../files/code-cache-file.ts";

/** The bundle's exports that the entry calls (hook-main.ts). */
interface HookBundleExports {
  runHook(argv: string[]): Promise<number>;
  isHookEvent?(event: string | undefined): boolean;
  hookAnswerWritten?(): boolean;
}

/**
 * Runs `hook <event>` (process.argv: node, this file, "hook", event...) from the bundle beside this
 * file, `entryUrl` (dist/hooks/hook-entry.cjs, as a file: URL string), with its code cache; else
 * imports bin/loopwright.js, which runs the hook its own way.
 */
export async function runHookEntry(entryUrl: string): Promise<void> {
  const argv = process.argv.slice(2);
  const exports = bundleToRun(argv, entryUrl)
    ? loadBundle(new URL("hook-main.bundle.js", entryUrl), argv[1] ?? "")
    : undefined;
  if (exports === undefined) {
    await import(new URL("../../bin/loopwright.js", entryUrl).href);
    return;
  }
  const { hook, saveCodeCache } = exports;
  process.exitCode = await hook.runHook(argv.slice(1));
  // As bin/loopwright.js: the first run of an event keeps what it compiled, after its answer went out;
  // the hook ends without Node tearing down its heap once nothing is left to do.
  if (hook.isHookEvent?.(argv[1]) === true) saveCodeCache?.();
  if (hook.hookAnswerWritten?.() === true) setImmediate(exitWhenIdle);
}

/**
 * Whether the built bundle is what bin/loopwright.js would run: a hook, on Node 24 or newer (which has
 * process.getBuiltinModule), LOOPWRIGHT_FROM=dist, or unset in a package without src/.
 */
function bundleToRun(argv: string[], entryUrl: string): boolean {
  if (argv[0] !== "hook" || typeof process.getBuiltinModule !== "function") return false;
  if (Number(process.versions.node.split(".")[0]) < 24) return false;
  const from = process.env.LOOPWRIGHT_FROM || undefined;
  if (from === "dist") return true;
  if (from !== undefined) return false;
  const { existsSync } = process.getBuiltinModule("node:fs");
  return !existsSync(new URL("../../src/hooks/hook-main.ts", entryUrl));
}

/**
 * Enables Node's compile cache (as bin/loopwright.js does) and compiles the bundle with the event's
 * code cache; its exports, and the cache's writer when the cache is to be written after the hook.
 * Undefined when the bundle is missing or does not load: bin/loopwright.js then runs hook-main.
 */
function loadBundle(
  bundle: URL,
  event: string,
): { hook: HookBundleExports; saveCodeCache?: () => void } | undefined {
  enableCompileCache();
  try {
    const { readFileSync } = process.getBuiltinModule("node:fs");
    const { Script } = process.getBuiltinModule("node:vm");
    const { join } = process.getBuiltinModule("node:path");
    const source = readFileSync(bundle);
    const folder = process.getBuiltinModule("node:module").getCompileCacheDir?.();
    const cacheFile =
      folder !== undefined && /^[a-z-]{1,32}$/.test(event)
        ? join(folder, `loopwright-hook-${event}-${nameHash(bundle.href)}`)
        : undefined;
    const cachedData = cacheFile === undefined ? undefined : readCodeCache(cacheFile, source);
    const script = new Script(source.toString("utf8"), { filename: bundle.href, cachedData });
    const bundleModule = { exports: {} as HookBundleExports };
    // Its imports of the modules left out resolve from the bundle's URL, as a module's import() does.
    const importBesideBundle = (specifier: string) => import(new URL(specifier, bundle).href);
    script.runInThisContext()(
      builtinModule,
      bundleModule,
      bundleModule.exports,
      bundle.href,
      importBesideBundle,
    );
    const saveCodeCache =
      cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected)
        ? () => {
            // After the answer: a failure (V8's included) changes nothing and says nothing.
            try {
              writeCodeCache(cacheFile, source, script.createCachedData());
            } catch {}
          }
        : undefined;
    return { hook: bundleModule.exports, saveCodeCache };
  } catch {
    return undefined;
  }
}

/**
 * Node's compile cache in bin/loopwright.js's folder for it: `$XDG_CACHE_HOME/loopwright/compile-cache`,
 * else `~/.cache/loopwright/compile-cache`; NODE_COMPILE_CACHE wins and NODE_DISABLE_COMPILE_CACHE=1
 * turns it off (Node decides both). A folder that cannot be used leaves it off, without a word.
 */
function enableCompileCache(): void {
  try {
    const { join } = process.getBuiltinModule("node:path");
    const cache =
      process.env.XDG_CACHE_HOME ||
      join(process.env.HOME || process.getBuiltinModule("node:os").homedir(), ".cache");
    process.getBuiltinModule("node:module").enableCompileCache?.(join(cache, "loopwright", "compile-cache"));
  } catch {}
}

/** The bundle's `require`: Node's builtin modules, nothing else (the build checks that it needs no other). */
function builtinModule(id: string): unknown {
  const builtin = process.getBuiltinModule(id);
  if (builtin === undefined) throw new Error(`the hook bundle requires ${id}, which is not a builtin module`);
  return builtin;
}

/** Ends the process with its exit code when no resource keeps the event loop alive; else does nothing. */
function exitWhenIdle(): void {
  if (process.getActiveResourcesInfo?.().length === 0) process.exit();
}
