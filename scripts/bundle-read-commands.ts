/**
 * Bundles the read-only commands (`ls`, `show`, `validate` in their plain forms, from cli/read-only-main)
 * into one ES module, `core/read-commands.bundle.js`, which bin/loopwright.js runs for them from dist/.
 * Why: these commands loaded 30 (`ls`) to 80 (`validate`) modules one by one, and Node resolving, reading
 * and linking them was most of their cost over a bare `node -e 0`; one file is resolved once. The
 * modules a command imports lazily on its usual path (the command itself, the spec cache, preflight) are
 * bundled too, and still run only when reached (esbuild keeps them lazy inside the bundle).
 *
 * The bundle lives in core/, not cli/: the spec cache and the parser's import find their files from
 * their own URL (`import.meta.url`), which in a bundle is the bundle's.
 *
 * What stays out, imported from beside the bundle:
 * - errors: its classes must be the ones the modules and the spec parser's bundle throw;
 * - the packages (node_modules), as for the modules;
 * - every module imported lazily off the read-only commands' usual path (the spec's parser, an engine's
 *   turn, the forge, the schedule tables, commander's command table): they load as without the bundle.
 *
 * Two checks make the bundle behave as the modules it replaces, or fail the build:
 * - a module inside the bundle and also reached by the modules that stay out would exist twice (its
 *   state and classes apart): only modules that hold neither (`sharedWithoutState`) may;
 * - `import.meta` in a bundled module means the bundle's own URL: allowed only in modules of the
 *   bundle's folder (`core/`), for which the two are the same folder.
 *
 * `npm run build` runs it on dist/ after tsc (`node scripts/bundle-read-commands.ts`); the tests run
 * `bundleReadCommands` on a build of their own.
 */
import { readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { type BuildOptions, build, type Metafile, type PluginBuild } from "esbuild";
import { type BundleManifest, modulesDigest } from "../src/files/bundle-freshness.ts";

/** The bundle's file, relative to the code folder. */
export const readCommandsBundle = "core/read-commands.bundle.js";
/** Modules imported by the bundle from beside it, relative to the code folder, without extension. */
const unbundledModules = ["errors"];
/**
 * The modules imported lazily (`import()`) that the bundle holds: those on the read-only commands' usual
 * path. Any other lazy import stays a lazy import of the module beside the bundle.
 */
export const bundledLazyModules = [
  "cli/commands/list-command",
  "cli/commands/show-command",
  "cli/commands/validate-command",
  "app/list-loops",
  "core/spec-cache",
  "git/repository",
  "git/verified-head",
  "loop/preflight",
  // What preflight checks for some specs only: a tasks loop's list, a pull-request finish's forge.
  "git/tree-with-file",
  "loop/strategies/task-list",
  "forge/open-forge",
  "forge/forge-doctor",
];
/**
 * Lazy imports left out that no read-only command loads: an engine's turn (a command checks engines,
 * never runs one). What they reach is not counted as a second copy; test/read-commands-bundle.test.ts
 * holds that the commands run through the bundle load none of them.
 */
export const turnModules = [
  "engines/run-command-turn",
  "engines/play-scripted-turn",
  "engines/claude-code/run-claude-code-turn",
  "engines/codex/run-codex-turn",
  "engines/copilot/run-copilot-turn",
  "engines/builtin/run-builtin-turn",
];
/**
 * What the bundle may import up front: it imports at its start what any module it holds imports, a lazy
 * one included, so a package or a costly builtin (child_process, fs/promises: streams) there would load
 * at every read-only command. Such an import must be taken where it is used (process.getBuiltinModule).
 */
const eagerImports = ["node:os", "node:path", "node:sqlite", "node:url"];
/**
 * Modules both inside the bundle and reached from a module that stays out, each holding no state and no
 * class that is checked with `instanceof`: a second copy of one behaves as the first.
 */
const sharedWithoutState = [
  // Reached by the spec's parser (core/spec-file), whose own bundle holds a copy of each as well.
  "files/node-fs",
  "files/read-regular-file",
  "core/spec-text",
  "core/duration",
  "core/gate-facts",
  "core/review-engine",
  "core/schedule-rule",
  "core/criterion-gate",
  "core/tamper-flag",
  "core/tamper-acceptance",
];

export interface ReadCommandsBundleOptions {
  /** The code folder: dist/ (its .js) or src/ (its .ts). */
  code: string;
  /**
   * The code folder the bundle goes into (as `core/read-commands.bundle.js`): `code` unless said. The
   * modules left out are imported from `code`.
   */
  into?: string;
}

/** Writes the bundle and returns its path; throws when a check above fails or esbuild does. */
export async function bundleReadCommands(options: ReadCommandsBundleOptions): Promise<string> {
  const code = resolve(options.code);
  const extension = code.endsWith("src") ? ".ts" : ".js";
  const outfile = join(resolve(options.into ?? code), readCommandsBundle);
  try {
    return await writeBundle(code, extension, outfile);
  } catch (error) {
    rmSync(outfile, { force: true });
    throw error;
  }
}

async function writeBundle(code: string, extension: string, outfile: string): Promise<string> {
  const fromBundle = (path: string) => `./${relative(dirname(outfile), path).split(sep).join("/")}`;
  const modulePath = (name: string) => join(code, `${name}${extension}`);
  const unbundled = new Set(unbundledModules.map(modulePath));
  const bundledLazy = new Set(bundledLazyModules.map(modulePath));
  /** The modules of the code folder left out of the bundle, as it imports them. */
  const leftOut = new Set<string>();
  const common: BuildOptions = {
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node24",
    packages: "external",
    logLevel: "error",
  };
  const options = (manifest: BundleManifest) => ({
    ...common,
    stdin: {
      contents: entry(fromBundle(modulePath("cli/read-only-main")), manifest),
      resolveDir: dirname(outfile),
    },
    outfile,
    metafile: true as const,
    // Fewer bytes to read, decode and hash for the compile cache (and to ship), names as in the modules.
    // Not the names shortened: esbuild then wraps each module in a parenthesized arrow, which V8 compiles
    // eagerly, and keeping names defines each function's name at load: the bundle's load allocated 401 KB
    // of the young generation that way against 234 KB, and a read-only command that stays under its
    // first size (1 MB) ends without a garbage collection.
    minifyWhitespace: true,
    minifySyntax: true,
    plugins: [
      {
        name: "read-commands",
        setup(context: PluginBuild) {
          context.onResolve({ filter: /^\./ }, (args) => {
            const path = resolve(args.resolveDir, args.path);
            const stays = unbundled.has(path) || (args.kind === "dynamic-import" && !bundledLazy.has(path));
            if (!stays) return undefined;
            leftOut.add(path);
            return { path: fromBundle(path), external: true };
          });
        },
      },
    ],
  });
  // Built twice: the entry names the modules the bundle holds, which the first build finds.
  const first = await build({ ...options({ modules: {}, digest: "" }), write: false });
  const held = inputs(first.metafile).filter((path) => path.startsWith(`${code}${sep}`));
  const modules = Object.fromEntries(held.map((path) => [fromBundle(path), statSync(path).size]));
  const result = await build(
    options({ modules, digest: modulesDigest(dirname(outfile), Object.keys(modules)) }),
  );
  const bundled = inputs(result.metafile);
  const upFront = Object.values(result.metafile.outputs)
    .flatMap((output) => output.imports)
    .filter((imported) => imported.kind === "import-statement")
    .map((imported) => imported.path)
    .filter((path) => !eagerImports.includes(path) && !unbundled.has(resolve(dirname(outfile), path)));
  if (upFront.length > 0)
    throw new Error(
      `the read commands' bundle would import ${[...new Set(upFront)].join(", ")} at every start: take it where it is used`,
    );
  const missing = [...bundledLazy].filter((path) => !bundled.includes(path));
  if (missing.length > 0)
    throw new Error(
      `the read commands' bundle no longer reaches ${missing.join(", ")}: update bundledLazyModules`,
    );
  const unreached = new Set(turnModules.map(modulePath));
  const reached = inputs(
    (
      await build({
        ...common,
        entryPoints: [...leftOut].filter((path) => !unreached.has(path)),
        write: false,
        metafile: true,
        outdir: "unused",
      })
    ).metafile,
  );
  const stateless = new Set(sharedWithoutState.map(modulePath));
  const twice = bundled.filter(
    (path) => reached.includes(path) && !leftOut.has(path) && !stateless.has(path),
  );
  if (twice.length > 0)
    throw new Error(
      `the read commands' bundle would hold a second copy of ${twice.join(", ")}: keep them out of it`,
    );
  const misplaced = bundled.filter(
    (path) =>
      path.startsWith(`${code}${sep}`) &&
      dirname(path) !== join(code, "core") &&
      /\bimport\.meta\b/.test(readFileSync(path, "utf8")),
  );
  if (misplaced.length > 0)
    throw new Error(`import.meta would be the bundle's URL in ${misplaced.join(", ")}: keep them out of it`);
  return outfile;
}

/** The absolute paths of a build's input files (the entry itself, `<stdin>`, left out). */
function inputs(metafile: Metafile): string[] {
  return Object.keys(metafile.inputs)
    .filter((path) => path !== "<stdin>")
    .map((path) => resolve(path));
}

/**
 * The bundle's entry: read-only-main's `readOnlyMain`, run only while the bundle is current, that is
 * while every module it holds (`manifest`: paths relative to the bundle, sizes, a digest of their
 * contents) holds what it held when bundled (src/files/bundle-freshness.ts): a rebuild of the modules
 * alone (tsc) or an edit of one (a patch of the installed package) leaves the commands to them.
 */
function entry(readOnlyMain: string, manifest: BundleManifest): string {
  return `import { bundleIsCurrent, readOnlyMain as run } from ${JSON.stringify(readOnlyMain)};
const manifest = ${JSON.stringify(manifest)};
export function readOnlyMain(argv) {
  return bundleIsCurrent(import.meta.url, manifest) ? run(argv) : undefined;
}
`;
}

if (import.meta.main) {
  const code = process.argv[2] ?? join(import.meta.dirname, "..", "dist");
  process.stdout.write(
    `read commands bundle: ${relative(process.cwd(), await bundleReadCommands({ code }))}\n`,
  );
}
