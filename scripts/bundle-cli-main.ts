/**
 * Bundles the CLI (cli/main with every module of the code folder it imports, at once or lazily) into one
 * script beside it, `cli/main.bundle.js`, which bin/loopwright.js runs for `run` instead of cli/main while
 * the modules it holds are unchanged (its entry says: `currentMain`).
 * Why: `run` loaded ~250 modules one by one (resolve, read, compile, link each) on its way to the
 * maker's first command; one file is read once, and compiled with V8's code cache of an earlier run
 * (made once that run's maker turn was under way: it holds every function compiled on the way to the
 * maker's first command, where Node's compile cache holds only what compiled as a module loaded).
 *
 * The bundle is a script of the hook bundle's shape (scripts/bundle-hook-path.ts): one function
 * expression whose body is esbuild's CommonJS output, with the parameters `bundleParameters` that the
 * launcher passes. It keeps the modules' order and laziness: a module imported with `import()` is
 * wrapped and runs only when that `import()` does, and a package a module imports is `require`d only
 * when that module runs (an ES module bundle hoists every package import to its start: zod, the
 * verifier's, would load before the maker's turn). The launcher's `require` loads a package as `import`
 * resolves it (its ES module where it has one, through Node's require() of ES modules): the same module
 * instance the modules would get. A package imported with `import()` stays an `import()` of it.
 *
 * `import.meta` in a bundled module is made that module's own: `__moduleMeta("<its path beside the
 * bundle>")`, whose `url` is the module's URL as if it had loaded unbundled, and whose `resolve` resolves
 * as the module would (a relative specifier from that URL, a package's as the launcher does: the same
 * node_modules folders). Any other use is left as it is, and esbuild's warning of it fails the build.
 *
 * Checks make the bundle behave as the modules it replaces, or fail the build: every module of the code
 * folder that cli/main reaches is inside (none exists twice); it requires only Node's builtins and
 * packages, imports dynamically only packages; esbuild gave no warning.
 *
 * `npm run build` runs it on dist/ after tsc (`node scripts/bundle-cli-main.ts`).
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { isBuiltin as isBuiltinModule } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { build } from "esbuild";
import { type BundleManifest, modulesDigest } from "../src/files/bundle-freshness.ts";

/** The bundle's file, relative to the code folder. */
export const cliMainBundle = "cli/main.bundle.js";

/**
 * What the bundle's entry holds of the modules it bundles: each, by its path relative to the bundle's
 * folder, with its size in bytes when bundled, and a digest of their contents. It hands out cli/main
 * only while they hold what they held (src/files/bundle-freshness.ts): a rebuild of the modules alone
 * (tsc without this step) or an edit of one, even one that keeps its size, runs the modules instead.
 */
export type CliMainBundleManifest = BundleManifest;

/** Where the entry's text holds the manifest, replaced once the build has named the modules. */
const manifestPlaceholder = "loopwright CLI bundle manifest";

/**
 * The bundle's entry, its exports: `currentMain()`, a promise of cli/main's exports while every module
 * the bundle holds is as it was when bundled, else undefined (bin/loopwright.js then imports cli/main
 * itself). cli/main is imported lazily (esbuild keeps it so inside the bundle): a stale bundle runs none
 * of its modules' code. The check is inside the bundle, compiled from its code cache with the rest: a
 * module of its own, imported by the launcher, cost ~2 ms of CPU a run.
 */
const entry = `import { bundleIsCurrent } from "../files/bundle-freshness.js";
const manifest = ${JSON.stringify(manifestPlaceholder)};
export function currentMain() {
  return bundleIsCurrent(require("node:url").fileURLToPath(__bundleUrl), manifest) ? import("./main.js") : undefined;
}
`;

/** The parameters of the bundle's function, in the order bin/loopwright.js passes them. */
export const bundleParameters = [
  "require",
  "module",
  "exports",
  "__bundleUrl",
  "__bundleImport",
  "__bundleResolve",
] as const;

/**
 * `import.meta` of the module at `path` (relative to the bundle), as that module would have it: its
 * URL, and `resolve` from it (a package's specifier through `__bundleResolve`, the launcher's resolve).
 */
const moduleMeta = `const __moduleMeta = (path) => {
  const url = new URL(path, __bundleUrl).href;
  const resolve = (specifier) =>
    /^(\\.{0,2}\\/|[a-z][a-z0-9+.-]*:)/i.test(specifier) ? new URL(specifier, url).href : __bundleResolve(specifier);
  return { url, resolve };
};`;

/**
 * esbuild's helper that makes a `require`d module an import's namespace. An ES module's namespace (what
 * the launcher's `require` gives for a package's ES module) is one already: as it is, the helper would
 * make the whole namespace the default export, as it does for a CommonJS module. Told apart by V8's own
 * test, not by `Symbol.toStringTag`, which a CommonJS module made by a bundler can carry too.
 */
const toEsmHelper = "var __toESM = (mod, isNodeMode, target) => (";
const toEsmForNamespaces =
  'var __toESM = (mod, isNodeMode, target) => require("node:util").types.isModuleNamespaceObject(mod) ? mod : (';

export interface CliMainBundleOptions {
  /** The code folder: dist/ (tsc's JavaScript). */
  code: string;
}

/** Writes the bundle and returns its path; throws when a check above fails or esbuild does. */
export async function bundleCliMain(options: CliMainBundleOptions): Promise<string> {
  const code = resolve(options.code);
  const outfile = join(code, cliMainBundle);
  let metaUses = 0;
  const result = await build({
    stdin: { contents: entry, resolveDir: dirname(outfile) },
    outfile,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node24",
    packages: "external",
    write: false,
    metafile: true,
    logLevel: "silent",
    charset: "ascii",
    banner: { js: `(function (${bundleParameters.join(", ")}) {\n"use strict";\n${moduleMeta}` },
    footer: { js: "})" },
    plugins: [
      {
        name: "module-meta",
        setup(context) {
          context.onLoad({ filter: /\.js$/ }, (args) => {
            const text = readFileSync(args.path, "utf8");
            if (!text.includes("import.meta")) return undefined;
            const path = JSON.stringify(relative(dirname(outfile), args.path));
            return {
              contents: text.replace(/\bimport\.meta(\.url\b|\.resolve\()/g, (_match, use) => {
                metaUses++;
                return `__moduleMeta(${path})${use}`;
              }),
              loader: "js",
            };
          });
        },
      },
    ],
  });
  if (result.warnings.length > 0)
    throw new Error(
      `the CLI bundle would not behave as its modules: ${result.warnings.map((warning) => warning.text).join("; ")}`,
    );
  const imports = Object.values(result.metafile.outputs).flatMap((output) => output.imports);
  const foreign = imports.filter(
    (entry) => !entry.external || entry.path.startsWith(".") || entry.path.startsWith("/"),
  );
  if (foreign.length > 0)
    throw new Error(
      `the CLI bundle would import ${foreign.map((entry) => entry.path).join(", ")}: only Node's builtins and packages`,
    );
  const [bundle] = result.outputFiles;
  const packageImports = imports.filter(
    (entry) => entry.kind === "dynamic-import" && !isBuiltinModule(entry.path),
  );
  // ASCII (a one-byte string for V8: half the bytes to decode, hash and scan): esbuild escapes strings
  // and templates, not regular expressions (nor comments), where an escape of each UTF-16 unit means
  // the same character.
  let text = bundle.text.replace(
    /[^\0-\x7f]/g,
    (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  if (!text.includes(toEsmHelper))
    throw new Error("esbuild's __toESM helper changed: review toEsmForNamespaces");
  text = text.replace(toEsmHelper, toEsmForNamespaces);
  text = importsThroughParameter(
    text,
    packageImports.map((entry) => entry.path),
    imports.filter((entry) => entry.kind === "dynamic-import").length,
  );
  if (metaUses === 0)
    throw new Error("no module's import.meta was rewritten: the check above is out of date");
  // The modules it holds, with their sizes and contents: its entry hands out cli/main only while each
  // holds what it held.
  const held = Object.keys(result.metafile.inputs)
    .filter((path) => path !== "<stdin>")
    .map((path) => resolve(path))
    .filter((path) => path.startsWith(`${code}${sep}`));
  const modules = Object.fromEntries(
    held.map((path) => [relative(dirname(outfile), path).split(sep).join("/"), statSync(path).size]),
  );
  const manifest: CliMainBundleManifest = {
    modules,
    digest: modulesDigest(dirname(outfile), Object.keys(modules)),
  };
  const parts = text.split(JSON.stringify(manifestPlaceholder));
  if (parts.length !== 2) throw new Error("the CLI bundle's entry lost its manifest's place");
  mkdirSync(dirname(outfile), { recursive: true });
  writeFileSync(outfile, parts.join(JSON.stringify(manifest)));
  return outfile;
}

/**
 * The bundle's text with each `import("<package>")` esbuild left made a call of `__bundleImport`; throws
 * unless exactly `expected` were, and no other `import(` is left outside a comment (a script has no
 * loader of its own).
 */
function importsThroughParameter(text: string, specifiers: string[], expected: number): string {
  let replaced = 0;
  let result = text;
  for (const specifier of new Set(specifiers)) {
    const call = `import(${JSON.stringify(specifier)})`;
    const parts = result.split(call);
    replaced += parts.length - 1;
    result = parts.join(`__bundleImport(${JSON.stringify(specifier)})`);
  }
  const code = result.split("\n").filter((line) => !/^\s*\/\//.test(line));
  if (replaced !== expected || code.some((line) => /\bimport\s*\(/.test(line)))
    throw new Error(
      `the CLI bundle's dynamic imports are not all of a package by its name (${replaced} of ${expected} replaced)`,
    );
  return result;
}

if (import.meta.main) {
  const code = process.argv[2] ?? join(import.meta.dirname, "..", "dist");
  process.stdout.write(`CLI bundle: ${relative(process.cwd(), await bundleCliMain({ code }))}\n`);
}
