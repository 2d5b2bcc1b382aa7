/**
 * Bundles the hook path (`loopwright hook <event>`, from hooks/hook-main) into one ES module beside
 * it, `hooks/hook-main.bundle.js`, which bin/loopwright.js runs instead of hook-main when it is there.
 * Why: a hook runs at every prompt and stop, and Node resolving, reading and linking its ~25 modules
 * one by one (@noble/hashes among them) was the largest cost over a bare `node -e ''`; one file is
 * resolved once. esbuild, a dev dependency, is the tool made for this (tsc does not bundle).
 *
 * What stays out: the modules a hook reaches only now and then and that pull in much more (the spec's
 * parser with yaml and zod, the gate runner with child_process): they stay `import()`s of the
 * unbundled modules beside the bundle, so a hook that needs them runs them exactly as without it.
 *
 * Two checks make the bundle behave as the modules it replaces, or fail the build:
 * - a module inside the bundle and also reached by the modules that stay out would exist twice
 *   (its state and classes apart): only modules that hold neither (`sharedWithoutState`) may;
 * - `import.meta` in a bundled module means the bundle's own URL: allowed only in modules of the
 *   bundle's folder (`hooks/`), for which the two are the same folder.
 *
 * `npm run build` runs it on dist/ after tsc (`node scripts/bundle-hook-path.ts`); the tests run
 * `bundleHookPath` on src/ into a package of their own.
 */
import { readFileSync } from "node:fs";
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

/** Writes the bundle and returns its path; throws when a check above fails or esbuild does. */
export async function bundleHookPath(options: HookBundleOptions): Promise<string> {
  const code = resolve(options.code);
  const extension = code.endsWith("src") ? ".ts" : ".js";
  const outfile = join(resolve(options.into ?? code), "hooks", "hook-main.bundle.js");
  const unbundled = new Set(unbundledModules.map((name) => join(code, `${name}${extension}`)));
  const common: BuildOptions = { bundle: true, platform: "node", format: "esm", target: "node24" };
  const result = await build({
    ...common,
    entryPoints: [join(code, "hooks", `hook-main${extension}`)],
    outfile,
    metafile: true,
    logLevel: "error",
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
  return outfile;
}

/** The absolute paths of a build's input files. */
function inputs(metafile: Metafile): string[] {
  return Object.keys(metafile.inputs).map((path) => resolve(path));
}

if (import.meta.main) {
  const code = process.argv[2] ?? join(import.meta.dirname, "..", "dist");
  process.stdout.write(`hook bundle: ${relative(process.cwd(), await bundleHookPath({ code }))}\n`);
}
