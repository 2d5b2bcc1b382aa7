/**
 * Bundles the spec's parser (core/spec-file with yaml, zod and croner, ~130 modules) into one script
 * beside it, `core/spec-file.bundle.cjs`, which `importSpecParser` runs from dist/ instead. Why: a spec
 * parsed from scratch (`run` or `validate` of a new or edited spec) spent about a third of its start-up
 * in Node resolving, reading and linking those modules one by one; one file is read once.
 *
 * A script (CommonJS in form), not an ES module, so that `importSpecParser` can compile it itself and
 * keep V8's code cache of it made after a parse: Node's compile cache keeps only the code compiled
 * before a module runs, and most of the parser's functions (zod's, yaml's) are compiled lazily at their
 * first call, which cost each fresh parse ~20 ms (spec-parser-import.ts). It is never `require`d.
 *
 * The bundle's name is stable (no content hash): an update that replaces dist/ while a loop runs leaves
 * a lazy load of it as valid as one of the modules it replaces.
 *
 * spec.ts, the zod schemas, is bundled but evaluated only when the parser first asks for it
 * (core/spec-schemas): a plain spec, which plain-spec.ts validates without zod, loads neither.
 *
 * What stays out, handed to the script by `importSpecParser` as `require("errors")`: errors (SpecError
 * must be the class the CLI catches). The parser does not reach the spec cache (it reads the spec through
 * spec-text, which holds no state): the cache, which imports the parser and keeps per-process state, has
 * one copy in a process, in the modules or in the read-only commands' bundle
 * (scripts/bundle-read-commands.ts). zod's locale index is bundled as its English export alone, as
 * `importSpecParser` serves it unbundled (zod-without-locales.ts).
 *
 * A manifest beside it, `core/spec-file.bundle.json`, names each module of the code folder the bundle
 * holds, with its size and a digest of their contents (src/files/bundle-freshness.ts): `importSpecParser`
 * uses the bundle only while every one is unchanged, so a rebuild by tsc alone (which leaves the bundle as
 * it was) or an edit of a module runs the new modules, not a stale bundle. It
 * also names the version of each parser package bundled: an update of one (npm update, npm audit fix)
 * makes `importSpecParser` parse through the modules, with the updated package.
 *
 * `npm run build` runs it on dist/ after tsc (`node scripts/bundle-spec-parser.ts`); the tests run
 * `bundleSpecParser` on src/ into a package of their own.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { build } from "esbuild";
import {
  nearestPackage,
  parserPackages,
  type SpecParserManifest,
  specParserBundle,
} from "../src/core/spec-parser-import.ts";
import { englishOnlyIndex } from "../src/core/zod-without-locales.ts";
import { modulesDigest } from "../src/files/bundle-freshness.ts";

/** The modules the script gets from `importSpecParser`, relative to the code folder, without extension. */
const unbundledModules = specParserBundle.externals;

export interface SpecParserBundleOptions {
  /** The code folder: dist/ (its .js) or src/ (its .ts). */
  code: string;
  /** The code folder the bundle and its manifest go into (under `core/`): `code` unless said. */
  into?: string;
}

/** Writes the bundle and its manifest and returns the bundle's path; throws when esbuild does. */
export async function bundleSpecParser(options: SpecParserBundleOptions): Promise<string> {
  const code = resolve(options.code);
  const extension = code.endsWith("src") ? ".ts" : ".js";
  const outfile = join(resolve(options.into ?? code), "core", specParserBundle.file);
  const unbundled = new Map(unbundledModules.map((name) => [join(code, `${name}${extension}`), name]));
  const result = await build({
    entryPoints: [join(code, "core", `spec-file${extension}`)],
    outfile,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node24",
    metafile: true,
    // Fewer bytes to read, decode and hash for the compile cache (and to ship), with the names as
    // written: identifiers are not shortened, so functions and classes keep their own names without
    // esbuild's keepNames, whose ~680 `__name(...)` calls (a defineProperty each, at load) cost each
    // parse of a new spec ~2.5 ms CPU. Only a top-level name that two bundled modules share is renamed
    // (zod's `string` and its helper's, `string2`): nothing the parse returns or reports reads one.
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: "error",
    plugins: [
      {
        name: "spec-parser",
        setup(context) {
          context.onResolve({ filter: /^\./ }, (args) => {
            const name = unbundled.get(resolve(args.resolveDir, args.path));
            return name === undefined ? undefined : { path: name, external: true };
          });
          // spec.ts (zod and the schemas) evaluated at the parser's first call for it, not when the
          // bundle runs: esbuild wraps a module reached by require() in a function run at that call.
          context.onLoad({ filter: /[\\/]core[\\/]spec-schemas\.(ts|js)$/ }, (args) => {
            if (dirname(args.path) !== join(code, "core")) return undefined;
            return {
              contents: `let used = false;
export function specSchemas() { used = true; return require("./spec${extension}"); }
export function specSchemasUsed() { return used; }
`,
              loader: "js",
              resolveDir: dirname(args.path),
            };
          });
          context.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => {
            const english = englishOnlyIndex(readFileSync(args.path, "utf8"));
            if (english === undefined) throw new Error(`zod's locale index changed layout: ${args.path}`);
            return { contents: english, loader: "js" };
          });
        },
      },
    ],
  });
  // A script has no loader for import() (see `runBundle` in spec-parser-import.ts): the parser needs none.
  const dynamic = Object.values(result.metafile.outputs)
    .flatMap((output) => output.imports)
    .filter((entry) => entry.kind === "dynamic-import");
  if (dynamic.length > 0)
    throw new Error(
      `the spec parser's bundle would import() ${dynamic.map((entry) => entry.path).join(", ")}: a script cannot`,
    );
  // Relative to the bundle's folder (core/), as bundle-freshness.ts reads them.
  const modules: Record<string, number> = {};
  for (const input of Object.keys(result.metafile.inputs).map((path) => resolve(path))) {
    if (!input.startsWith(`${code}${sep}`) || input.includes(`${sep}node_modules${sep}`)) continue;
    modules[relative(dirname(outfile), input).split(sep).join("/")] = statSync(input).size;
  }
  // The packages as Node resolves them from the bundle's folder: what esbuild bundled, and what
  // `importSpecParser` compares with what is installed there when it loads the bundle.
  const packages: SpecParserManifest["packages"] = {};
  for (const name of parserPackages) {
    const version = nearestPackage(name, dirname(outfile))?.version;
    if (typeof version !== "string") throw new Error(`no version of ${name} found from ${dirname(outfile)}`);
    packages[name] = version;
  }
  const manifest: SpecParserManifest = {
    modules,
    digest: modulesDigest(dirname(outfile), Object.keys(modules)),
    packages,
  };
  writeFileSync(join(dirname(outfile), specParserBundle.manifest), `${JSON.stringify(manifest, null, 1)}\n`);
  return outfile;
}

if (import.meta.main) {
  const code = process.argv[2] ?? join(import.meta.dirname, "..", "dist");
  process.stdout.write(`spec parser bundle: ${relative(process.cwd(), await bundleSpecParser({ code }))}\n`);
}
