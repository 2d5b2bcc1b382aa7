/**
 * Bundles the hook path (`loopwright hook <event>`, from hooks/hook-main) into one file beside it,
 * `hooks/hook-main.bundle.js`, which bin/loopwright.js runs instead of hook-main when it is there.
 * Why: a hook runs at every prompt and stop, and Node resolving, reading and linking its ~25 modules
 * one by one (@noble/hashes among them) was the largest cost over a bare `node -e ''`; one file is
 * resolved once. esbuild, a dev dependency, is the tool made for this (tsc does not bundle).
 *
 * The bundle is a script, not an ES module: one function expression, `(function (require, module,
 * exports, __bundleUrl) { "use strict"; ... })`, whose body is esbuild's CommonJS output. The launcher
 * compiles it with node:vm, so that it can keep V8's code cache of the functions a hook ran (see
 * bin/loopwright.js): Node's compile cache holds only what was compiled when a module loaded, and a
 * hook's functions compile lazily, at their first call, in every process. Its `require` gives Node's
 * builtin modules alone (nothing else is required: the build checks it), `__bundleUrl` is the bundle's
 * URL (what `import.meta.url` was), and `__bundleImport` imports a module left out, from the bundle's
 * URL as the module's own `import()` would. The build puts it in place of each such `import()`: a
 * script's own `import()` needs a loader given to node:vm, and the one that needs no flag
 * (USE_MAIN_CONTEXT_DEFAULT_LOADER) makes Node print an experimental warning on the hook's stderr.
 *
 * What stays out: the modules a hook reaches only now and then and that pull in much more (the spec's
 * parser with yaml and zod, the gate runner with child_process): they stay `import()`s of the
 * unbundled modules beside the bundle, so a hook that needs them runs them exactly as without it.
 *
 * Checks make the bundle behave as the modules it replaces, or fail the build:
 * - a module inside the bundle and also reached by the modules that stay out would exist twice
 *   (its state and classes apart): only modules that hold neither (`sharedWithoutState`) may;
 * - `import.meta` in a bundled module means the bundle's own URL: allowed only in modules of the
 *   bundle's folder (`hooks/`), for which the two are the same folder, and only as `import.meta.url`
 *   (esbuild warns of any other use, which a script does not have: a warning fails the build);
 * - the bundle imports nothing but Node's builtins statically, and nothing but the unbundled modules
 *   dynamically;
 * - the bundle is ASCII (a one-byte string for V8: half the bytes to decode, hash and scan).
 *
 * `npm run build` runs it on dist/ after tsc (`node scripts/bundle-hook-path.ts`); the tests run
 * `bundleHookPath` on src/ into a package of their own.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { isBuiltin as isBuiltinModule } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { type BuildOptions, build, type Metafile } from "esbuild";

/** The modules that stay out of the bundle, relative to the code folder, without extension. */
export const unbundledModules = ["core/spec-file", "hooks/hook-gates"] as const;
/** Modules both inside the bundle and reached from an unbundled module: stateless re-exports only. */
const sharedWithoutState = ["files/node-fs"];

export interface HookBundleOptions {
  /** The code folder: dist/ (its .js) or src/ (its .ts). */
  code: string;
  /**
   * The code folder the bundle goes into (as `hooks/hook-main.bundle.js`): `code` unless said. It keeps
   * the unbundled modules' paths and `import.meta.url`-relative paths (../../package.json) of `code`.
   */
  into?: string;
}

/** The parameters of the bundle's function, in the order bin/loopwright.js passes them. */
export const bundleParameters = ["require", "module", "exports", "__bundleUrl", "__bundleImport"] as const;

/** Writes the bundle and returns its path; throws when a check above fails or esbuild does. */
export async function bundleHookPath(options: HookBundleOptions): Promise<string> {
  const code = resolve(options.code);
  const extension = code.endsWith("src") ? ".ts" : ".js";
  const outfile = join(resolve(options.into ?? code), "hooks", "hook-main.bundle.js");
  const unbundled = new Set(unbundledModules.map((name) => join(code, `${name}${extension}`)));
  const common: BuildOptions = { bundle: true, platform: "node", format: "esm", target: "node24" };
  const result = await build({
    ...common,
    format: "cjs",
    entryPoints: [join(code, "hooks", `hook-main${extension}`)],
    outfile,
    write: false,
    metafile: true,
    logLevel: "silent",
    charset: "ascii",
    define: { "import.meta.url": "__bundleUrl" },
    banner: { js: `(function (${bundleParameters.join(", ")}) {\n"use strict";` },
    footer: { js: "})" },
    plugins: [
      {
        name: "unbundled",
        setup(context) {
          context.onResolve({ filter: /^\./ }, (args) => {
            const path = resolve(args.resolveDir, args.path);
            if (!unbundled.has(path)) return undefined;
            return { path: `./${relative(dirname(outfile), path)}`, external: true };
          });
        },
      },
    ],
  });
  if (result.warnings.length > 0)
    throw new Error(
      `the hook bundle would not behave as its modules: ${result.warnings.map((warning) => warning.text).join("; ")}`,
    );
  const bundled = inputs(result.metafile);
  const shared = inputs(
    (await build({ ...common, entryPoints: [...unbundled], write: false, metafile: true, outdir: "unused" }))
      .metafile,
  ).filter((path) => bundled.includes(path) && !unbundled.has(path));
  const stateless = new Set(sharedWithoutState.map((name) => join(code, `${name}${extension}`)));
  const twice = shared.filter((path) => !stateless.has(path));
  if (twice.length > 0)
    throw new Error(`the hook bundle would hold a second copy of ${twice.join(", ")}: keep them out of it`);
  const misplaced = bundled.filter(
    (path) => dirname(path) !== join(code, "hooks") && /\bimport\.meta\b/.test(readFileSync(path, "utf8")),
  );
  if (misplaced.length > 0)
    throw new Error(`import.meta would be the bundle's URL in ${misplaced.join(", ")}: keep them out of it`);
  const imports = Object.values(result.metafile.outputs).flatMap((output) => output.imports);
  const unbundledPaths = new Set([...unbundled].map((path) => `./${relative(dirname(outfile), path)}`));
  const foreign = imports.filter((entry) =>
    entry.kind === "dynamic-import" ? !unbundledPaths.has(entry.path) : !isBuiltinModule(entry.path),
  );
  if (foreign.length > 0)
    throw new Error(
      `the hook bundle would import ${foreign.map((entry) => entry.path).join(", ")}: only Node's builtins and the unbundled modules`,
    );
  const [bundle] = result.outputFiles;
  if (bundle.contents.some((byte) => byte > 0x7f))
    throw new Error("the hook bundle is not ASCII: escape the characters esbuild left as they are");
  const dynamicImports = imports.filter((entry) => entry.kind === "dynamic-import").length;
  const text = importsThroughParameter(bundle.text, unbundledPaths, dynamicImports);
  mkdirSync(dirname(outfile), { recursive: true });
  writeFileSync(outfile, text);
  return outfile;
}

/**
 * The bundle's text with each `import("<an unbundled module>")` esbuild left made a call of
 * `__bundleImport`; throws unless exactly `expected` were, and no other `import(` is left (a script
 * has no loader of its own for it).
 */
function importsThroughParameter(text: string, unbundledPaths: Set<string>, expected: number): string {
  let replaced = 0;
  let result = text;
  for (const path of unbundledPaths) {
    const call = `import(${JSON.stringify(path)})`;
    const parts = result.split(call);
    replaced += parts.length - 1;
    result = parts.join(`__bundleImport(${JSON.stringify(path)})`);
  }
  if (replaced !== expected || /\bimport\s*\(/.test(result))
    throw new Error(
      `the hook bundle's dynamic imports are not all of an unbundled module by its path (${replaced} of ${expected} replaced)`,
    );
  return result;
}

/**
 * Bundles hooks/hook-entry with the code cache's module into `hooks/hook-entry.cjs` beside the hook
 * bundle: the CommonJS entry the launcher execs Node on (see hook-entry.ts for why). A Node without
 * process.getBuiltinModule, which the code cache's module calls as it loads, is handed to
 * bin/loopwright.js before anything else runs (it answers in JSON there). Returns its path.
 */
export async function bundleHookEntry(options: HookBundleOptions): Promise<string> {
  const code = resolve(options.code);
  const extension = code.endsWith("src") ? ".ts" : ".js";
  const outfile = join(resolve(options.into ?? code), "hooks", "hook-entry.cjs");
  const binUrl =
    'require("node:url").pathToFileURL(require("node:path").join(__dirname, "../../bin/loopwright.js")).href';
  const result = await build({
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node24",
    entryPoints: [join(code, "hooks", `hook-entry${extension}`)],
    outfile,
    write: false,
    metafile: true,
    logLevel: "silent",
    charset: "ascii",
    banner: {
      js: `"use strict";\nif (typeof process.getBuiltinModule !== "function") return void import(${binUrl});`,
    },
    footer: { js: 'module.exports.runHookEntry(require("node:url").pathToFileURL(__filename).href);' },
  });
  const imports = Object.values(result.metafile.outputs).flatMap((output) => output.imports);
  const foreign = imports.filter((entry) => !isBuiltinModule(entry.path));
  if (result.warnings.length > 0 || foreign.length > 0)
    throw new Error(
      `the hook entry would not run alone: ${[...result.warnings.map((warning) => warning.text), ...foreign.map((entry) => entry.path)].join("; ")}`,
    );
  mkdirSync(dirname(outfile), { recursive: true });
  writeFileSync(outfile, result.outputFiles[0].text);
  return outfile;
}

/** The absolute paths of a build's input files. */
function inputs(metafile: Metafile): string[] {
  return Object.keys(metafile.inputs).map((path) => resolve(path));
}

if (import.meta.main) {
  const code = process.argv[2] ?? join(import.meta.dirname, "..", "dist");
  process.stdout.write(`hook bundle: ${relative(process.cwd(), await bundleHookPath({ code }))}\n`);
  process.stdout.write(`hook entry: ${relative(process.cwd(), await bundleHookEntry({ code }))}\n`);
}
