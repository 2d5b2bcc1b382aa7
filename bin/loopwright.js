#!/usr/bin/env node
// Launcher: answers --version without loading anything, runs Claude Code hooks (`hook <event>`) without
// the CLI framework so they start fast, and otherwise runs the CLI: the TypeScript sources in a checkout
// (Node strips the types) or the compiled JavaScript in a published package (which ships no src/).
// LOOPWRIGHT_FROM=dist or =src forces one (the benchmarks measure dist/, what users install); an
// unknown value, or src/ asked for where there is none, is an error (exit 2).
// Builtins come from process.getBuiltinModule, not `import`: an ES module import of node:fs builds
// its namespace, which loads fs/promises and streams (see src/files/node-fs.ts). A Node without it
// (before 20.16 and 22.3) imports fs, so that `--version` and the version check below still answer.
const { existsSync, readFileSync } = process.getBuiltinModule?.("node:fs") ?? (await import("node:fs"));

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  process.stdout.write(`${manifest.version}\n`);
  process.exit(0);
}
const isHook = argv[0] === "hook";
const [major] = process.versions.node.split(".").map(Number);
if (major < 24) {
  const message = `loopwright needs Node.js 24 or newer (this is ${process.version}).`;
  // A hook answers in JSON with exit 0 whatever happens; the user sees the message, nothing is blocked.
  if (isHook)
    process.stdout.write(`${JSON.stringify({ systemMessage: `${message} Hook mode checked nothing.` })}\n`);
  else process.stderr.write(`${message}\n`);
  process.exit(isHook ? 0 : 2);
}
const module = process.getBuiltinModule("node:module");
const { join } = process.getBuiltinModule("node:path");

/** The module `path` (no extension) from src/ in a checkout, else from dist/; LOOPWRIGHT_FROM decides. */
function entry(path) {
  const from = process.env.LOOPWRIGHT_FROM || undefined;
  const source = new URL(`../src/${path}.ts`, import.meta.url);
  const built = new URL(`../dist/${path}.js`, import.meta.url);
  if (from !== undefined && from !== "src" && from !== "dist")
    return fail(`LOOPWRIGHT_FROM is "${from}": use src or dist`);
  const chosen = from === "dist" || (from === undefined && !existsSync(source)) ? built : source;
  if (!existsSync(chosen))
    return fail(`${chosen.pathname} is missing${chosen === built ? " (run npm run build)" : ""}`);
  return chosen.href;
}

/**
 * The hook path's module: from dist/, its one-file bundle when the build made it (one file to load
 * instead of ~25: scripts/bundle-hook-path.ts), else hook-main itself, as from src/ and when the
 * bundle is missing or does not load. Its code cache is kept per event (a plain name only).
 */
async function hookModule(event) {
  const main = entry("hooks/hook-main");
  if (main.endsWith(".js")) {
    try {
      const bundle = new URL("../dist/hooks/hook-main.bundle.js", import.meta.url);
      return await runBundle(bundle, /^[a-z-]{1,32}$/.test(event) ? `hook-${event}` : undefined);
    } catch {}
  }
  return import(main);
}

/**
 * The CLI's module for `run` (not `run --detach`): from dist/, its one-file bundle when the build made
 * it and it is current (one file instead of ~480 modules: scripts/bundle-cli-main.ts; the bundle checks
 * its modules itself and hands out cli/main through `currentMain` only while they are unchanged), else cli/main
 * itself, as from src/, for every other command, and when the bundle is missing or does not load. Only
 * `run [spec] [--json]` keeps a code cache: what `run --help` or a misspelt option compiles would make
 * a poor one, kept until the bundle changes.
 */
async function cliModule() {
  const main = entry("cli/main");
  if (main.endsWith(".js") && argv[0] === "run" && !argv.includes("--detach")) {
    const plain =
      argv.length <= 3 && argv.slice(1).every((word) => word === "--json" || !word.startsWith("-"));
    try {
      const bundle = new URL("../dist/cli/main.bundle.js", import.meta.url);
      const bundled = await (await runBundle(bundle, plain ? "cli-run" : undefined)).currentMain?.();
      if (bundled !== undefined) return bundled;
    } catch {}
    // Stale, or not loaded: what it compiled is not what runs.
    saveCodeCache = undefined;
  }
  return import(main);
}

/** Set by `runBundle` when the bundle's code cache is to be written once the command has answered. */
let saveCodeCache;

/**
 * Runs a bundle (a script whose value is a function: scripts/bundle-hook-path.ts,
 * scripts/bundle-cli-main.ts) and returns its exports. It is compiled with V8's code cache of an earlier
 * run of the command `name`: made once that run's maker turn was under way (cli/run-under-way.ts; after
 * the command when it ended before, or for a hook), the cache holds every function compiled on the way
 * to the maker's first command, where Node's compile cache holds only the code compiled as a module
 * loads (a command's functions then compile at their first call, in every process). What the rest of a
 * run compiles (verifier, gates' end, commit) is left out: it would be deserialized at every start, and
 * compiles lazily while the maker works. The cache is a file in Node's compile cache folder (one per
 * Node and V8 version and flags; none where Node's is off), named for `name` and the bundle's URL, used
 * only for the bundle's exact text and undamaged (dist/files/code-cache-file.js). Without it, or with
 * one V8 refuses, the bundle compiles as without it and `saveCodeCache` writes a new one, once. Without
 * a `name`, none is kept.
 */
async function runBundle(bundle, name) {
  const { Script } = process.getBuiltinModule("node:vm");
  const source = readFileSync(bundle);
  const folder = module.getCompileCacheDir?.();
  // Without its module (a package built without it), the bundle runs without a code cache.
  const cacheFiles =
    folder !== undefined && name !== undefined
      ? await import(new URL("../dist/files/code-cache-file.js", import.meta.url).href).catch(() => undefined)
      : undefined;
  const cacheFile = cacheFiles && join(folder, `loopwright-${name}-${cacheFiles.nameHash(bundle.href)}`);
  const text = source.toString("utf8");
  // V8's data is read over the bundle's bytes, whose text is taken: memory touched already reads faster.
  const cachedData = cacheFiles?.readCodeCache(cacheFile, source, source);
  const script = new Script(text, { filename: bundle.href, cachedData });
  const bundleModule = { exports: {} };
  // Its imports of the modules and packages left out resolve as the modules' own import() would: a
  // relative path from the bundle's URL (beside it in dist/), a package's name from this file (the same
  // node_modules folders).
  const importBesideBundle = (specifier) =>
    import(specifier.startsWith(".") ? new URL(specifier, bundle).href : specifier);
  script.runInThisContext()(
    bundleRequire,
    bundleModule,
    bundleModule.exports,
    bundle.href,
    importBesideBundle,
    import.meta.resolve,
  );
  if (cacheFiles && (cachedData === undefined || script.cachedDataRejected)) {
    // After the answer: a failure (V8's included) changes nothing and says nothing.
    saveCodeCache = () => {
      saveCodeCache = undefined;
      try {
        // The text compiled, as bytes (the bundle's own: esbuild writes ASCII; `source` holds no more).
        cacheFiles.writeCodeCache(cacheFile, Buffer.from(text, "utf8"), script.createCachedData());
      } catch {}
    };
  }
  return bundleModule.exports;
}

/**
 * The bundles' `require`: a Node builtin module, or a package as `import` would load it (its ES module
 * where it has one, through Node's require() of ES modules: the very module instance an import of it
 * gets; a CommonJS one through Node's module cache, as an import of it does).
 */
function bundleRequire(id) {
  const builtin = process.getBuiltinModule(id);
  if (builtin !== undefined) return builtin;
  const { fileURLToPath } = process.getBuiltinModule("node:url");
  return module.createRequire(import.meta.url)(fileURLToPath(import.meta.resolve(id)));
}

/**
 * The read-only commands' bundle (`ls`, `show`, `validate` in one file instead of 30 to 80 modules:
 * scripts/bundle-read-commands.ts), from dist/ when the build made it and it loads; else undefined, and
 * cli/main runs the command, as from src/. It runs only their plain forms: anything else it hands back.
 */
async function readCommandsBundle() {
  if (!["ls", "show", "validate"].includes(argv[0]) || !entry("cli/main").endsWith(".js")) return undefined;
  const bundle = new URL("../dist/core/read-commands.bundle.js", import.meta.url);
  if (!existsSync(bundle)) return undefined;
  try {
    return await import(bundle.href);
  } catch {
    return undefined;
  }
}

/** Ends the process with its exit code when no resource keeps the event loop alive; else does nothing. */
function exitWhenIdle() {
  if (process.getActiveResourcesInfo?.().length === 0) process.exit();
}

/** Says what is wrong: a hook as its JSON answer (exit 0, nothing blocked), the CLI on stderr (exit 2). */
function fail(message) {
  if (isHook) process.stdout.write(`${JSON.stringify({ systemMessage: `loopwright: ${message}` })}\n`);
  else process.stderr.write(`loopwright: ${message}\n`);
  process.exit(isHook ? 0 : 2);
}

/**
 * Where Node keeps compiled code (and stripped types) between runs: `$XDG_CACHE_HOME/loopwright/
 * compile-cache`, else `~/.cache/loopwright/compile-cache`. NODE_COMPILE_CACHE, when set, wins (Node
 * enabled it before this file ran); NODE_DISABLE_COMPILE_CACHE=1 turns it off.
 */
function compileCacheDirectory() {
  // HOME is what os.homedir() answers when it is set (node:os is loaded only when it is not).
  const cache =
    process.env.XDG_CACHE_HOME ||
    join(process.env.HOME || process.getBuiltinModule("node:os").homedir(), ".cache");
  return join(cache, "loopwright", "compile-cache");
}

// Every command, hooks above all (they run at every prompt and stop), starts faster from the cache. A
// folder that cannot be written (read-only, a file in the way) leaves the cache off: Node returns a
// status, it does not throw; the try is for anything else. Nothing is said: the command works without it.
try {
  module.enableCompileCache?.(compileCacheDirectory());
} catch {}

// `ls`, `show` and `validate` in their plain forms run from their bundle when there is one.
const readOnly = (await readCommandsBundle())?.readOnlyMain?.(argv);
if (isHook) {
  const hook = await hookModule(argv[1] ?? "");
  process.exitCode = await hook.runHook(argv.slice(1));
  // The first run of an event with this bundle keeps what it compiled, after its answer went out.
  if (hook.isHookEvent?.(argv[1]) === true) saveCodeCache?.();
  // A hook ends without Node tearing down its heap (a few ms of every hook) once nothing is left to do:
  // its answer went out whole through blocking writes and, a turn of the event loop later, nothing
  // keeps the loop alive (no child, timer, stream or request). Anything else, or a module that cannot
  // say (`hookAnswerWritten` missing), leaves the exit to Node, as before.
  if (hook.hookAnswerWritten?.() === true) setImmediate(exitWhenIdle);
} else if (readOnly) {
  process.exitCode = await readOnly;
  // As a hook does, once nothing is left to do (what the command scheduled, such as a spec cache write,
  // runs first; a pending write to a stream keeps the process to its normal end).
  setImmediate(exitWhenIdle);
} else {
  // `validate`'s sandbox probe (a bwrap process, whose namespaces take tens of ms to set up and tear
  // down) starts before the CLI's modules load, and they load while it runs: `validate` waits for its
  // answer, and it was most of the command's wall time when started later (it began ~60 ms after this
  // file did on a loaded 2-core machine). The command's own call then waits for this probe.
  if (argv[0] === "validate") {
    const { parseReadCommand, readCommandForms } = await import(entry("cli/read-commands"));
    if (parseReadCommand(argv)?.form === readCommandForms.validate)
      (await import(entry("sandbox/sandbox-availability"))).primeSandboxAvailability();
  }
  const { main, whenRunUnderWay } = await cliModule();
  // A run keeps what its way to the maker's first command compiled, once that command runs.
  if (saveCodeCache) whenRunUnderWay?.(() => saveCodeCache?.());
  process.exitCode = await main(argv);
  // The first run with this bundle keeps what it compiled, unless the command was refused (a usage or
  // spec error, exit 2), which compiled little of what a run does.
  if (process.exitCode !== 2) saveCodeCache?.();
}
