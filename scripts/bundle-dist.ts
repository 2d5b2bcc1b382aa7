/**
 * Bundles the compiled CLI (dist/) into a few ES modules in `dist/bundle/`, which bin/loopwright.js runs
 * instead of dist/'s ~340 modules: one entry per place the bin enters (the CLI, `validate`'s early probe)
 * or Node starts as a script of its own (the service's controllers), and chunks they share. The hooks
 * have a bundle of their own, one file (scripts/bundle-hook-path.ts): through this one's chunks a hook
 * loaded 17 files instead of 2, and a hook process loads nothing of the CLI.
 * Why: Node resolving, reading and linking each module one by one was ~130 ms of a profiled `run`'s
 * start (~310 files before the maker; ~130 from the bundle). esbuild, a dev dependency, does this.
 *
 * One build with code splitting: each module exists once (in one entry or chunk), so its state is one
 * whatever entry reached it, and an `import()` stays a chunk loaded when it runs. The packages on the
 * commands' paths (`bundledPackages`) are bundled too; the others stay imports of node_modules, and the
 * build fails if one of those depends on a bundled package (two copies of that package).
 *
 * Where a module finds a file next to itself (`import.meta.url`: package.json, the dashboard's assets,
 * the spec cache's code stamp), it still finds the file next to its own compiled module in dist/: its
 * `import.meta.url` and `.dirname`/`.filename` are that module's, computed from the chunk's URL. dist/'s
 * per-module files therefore stay, and are what a `tsc`-only build runs. A module that starts a bundle
 * entry as a process by a path beside itself (`inBundleFolder`) resolves it in the bundle's folder.
 * `import.meta.resolve` resolves a relative path from the module's own URL, a package from the chunk's
 * (the same node_modules). Anything else the build cannot keep as it was fails the build: another
 * `import.meta` property, a bundled package that uses `import.meta`, `__dirname` or `__filename` (they
 * would be the chunk's, or undefined in an ES module).
 *
 * `npm run build` runs it on dist/ after tsc (`node scripts/bundle-dist.ts`); the tests also run
 * `bundleDist` on src/ into a package of their own.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { build, type Metafile, type Plugin } from "esbuild";
import { bundleHookPath } from "./bundle-hook-path.ts";

/** The entries, by the name of their file in the bundle's folder: the module each bundles (no extension). */
export const bundleEntries = {
  main: "cli/main",
  "read-commands": "cli/read-commands",
  "sandbox-availability": "sandbox/sandbox-availability",
  "controller-main": "service/controller-main",
} as const;

/** The bundle's folder, inside the code folder. */
export const bundleFolder = "bundle";

/**
 * Packages bundled in (with what they import): those `run`, the read-only commands and `validate` load.
 * zod stays out: the AI SDK, which stays out, validates with it too (and the spec parser's import of it
 * keeps its English-only locale hook, src/core/spec-parser-import.ts).
 */
export const bundledPackages = ["yaml", "picomatch", "croner", "@noble/hashes", "commander"];

/** What each `import.meta` property a module of the code folder reads becomes (declared above it). */
const ownModuleNames: Record<string, string> = {
  url: "__ownModuleUrl",
  filename: "__ownModuleFilename",
  dirname: "__ownModuleDirname",
  resolve: "__ownModuleResolve",
};

/** Modules whose `import.meta.url` is their own name in the bundle's folder: they spawn a bundle entry. */
const inBundleFolder = ["service/controller-process"];

export interface BundleOptions {
  /** The code folder: dist/ (its .js) or src/ (its .ts). */
  code: string;
  /** The folder the bundle's folder goes into: `code` unless said. */
  into?: string;
}

/** Writes the bundle and returns its folder; throws when esbuild or a check above fails. */
export async function bundleDist(options: BundleOptions): Promise<string> {
  const code = resolve(options.code);
  const extension = code.endsWith("src") ? ".ts" : ".js";
  const outdir = join(resolve(options.into ?? code), bundleFolder);
  rmSync(outdir, { recursive: true, force: true });
  const entryPoints = Object.fromEntries(
    Object.entries(bundleEntries).map(([name, path]) => [name, join(code, `${path}${extension}`)]),
  );
  const result = await build({
    entryPoints,
    outdir,
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: "node24",
    entryNames: "[name]",
    chunkNames: "chunk-[hash]",
    // A bundled CommonJS package's `require` of a Node builtin (esbuild's own shim throws in an ES module),
    // made at its first call: most chunks never call it.
    banner: {
      js: [
        "let __createdRequire;",
        "const require = (id) =>",
        '  (__createdRequire ??= process.getBuiltinModule("node:module").createRequire(import.meta.url))(id);',
      ].join("\n"),
    },
    keepNames: true,
    metafile: true,
    // esbuild's errors are in what it throws (the build fails with them); not printed twice.
    logLevel: "silent",
    plugins: [packagesOutside(), ownModuleUrls(code, outdir, extension)],
  });
  checkPackages(result.metafile, code);
  return outdir;
}

/** The package a bare specifier names: `@scope/name` or `name`. */
function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/** Leaves every package outside the bundle except `bundledPackages` and what those import. */
function packagesOutside(): Plugin {
  return {
    name: "packages-outside",
    setup(context) {
      context.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith("node:")) return undefined;
        const fromBundledPackage = args.importer.includes(`${sep}node_modules${sep}`);
        if (fromBundledPackage || bundledPackages.includes(packageOf(args.path))) return undefined;
        return { path: args.path, external: true };
      });
    },
  };
}

/**
 * Gives each of the code folder's modules that reads `import.meta` its own module's URL (see the file's
 * comment), and fails on the forms it cannot keep.
 */
function ownModuleUrls(code: string, outdir: string, extension: string): Plugin {
  const codePrefix = `${code}${sep}`;
  return {
    name: "own-module-urls",
    setup(context) {
      context.onLoad({ filter: /\.[jt]s$/ }, (args) => {
        if (!args.path.startsWith(codePrefix)) return undefined;
        const text = readFileSync(args.path, "utf8");
        const loader = args.path.endsWith(".ts") ? "ts" : "js";
        if (!/\bimport\.meta\b/.test(text)) return { contents: text, loader };
        const module = relative(code, args.path).slice(0, -extension.length).split(sep).join("/");
        const url = inBundleFolder.includes(module)
          ? `./${basename(args.path)}`
          : relative(outdir, args.path).split(sep).join("/");
        const problems: string[] = [];
        const contents = text.replace(
          /\bimport\.meta(?:\.(\w+))?/g,
          (whole, property: string | undefined, at: number) => {
            const replacement = property && ownModuleNames[property];
            if (replacement) return replacement;
            if (!isComment(text.slice(text.lastIndexOf("\n", at) + 1, at)))
              problems.push(`${module}: ${whole}`);
            return whole;
          },
        );
        if (problems.length > 0)
          return { errors: problems.map((problem) => ({ text: `the bundle cannot keep ${problem}` })) };
        const declarations = [
          `const __ownModuleUrl = new URL(${JSON.stringify(url)}, import.meta.url).href;`,
          'const __ownModuleFilename = process.getBuiltinModule("node:url").fileURLToPath(__ownModuleUrl);',
          'const __ownModuleDirname = process.getBuiltinModule("node:path").dirname(__ownModuleFilename);',
          // A relative path from the module's own URL; a package from the chunk's, which finds the same node_modules.
          "const __ownModuleResolve = (specifier) => /^\\.{0,2}\\//.test(specifier) ? new URL(specifier, __ownModuleUrl).href : import.meta.resolve(specifier);",
        ].join(" ");
        return { contents: `${declarations}\n${contents}`, loader };
      });
    },
  };
}

/**
 * Fails when a bundled package uses what would change in the bundle (`import.meta`, `__dirname`,
 * `__filename`), or when a package left outside depends on a bundled one (it would load its own copy).
 */
function checkPackages(metafile: Metafile, code: string): void {
  const inputs = Object.keys(metafile.inputs).map((path) => resolve(path));
  const packageFiles = inputs.filter((path) => path.includes(`${sep}node_modules${sep}`));
  const unsafe = packageFiles.filter((path) =>
    readFileSync(path, "utf8")
      .split("\n")
      .some((line) => !isComment(line) && /\bimport\.meta\b|\b__dirname\b|\b__filename\b/.test(line)),
  );
  if (unsafe.length > 0)
    throw new Error(`bundled packages use import.meta, __dirname or __filename: ${unsafe.join(", ")}`);
  const bundled = new Set(
    packageFiles.map((path) => packageOf(path.split(`${sep}node_modules${sep}`).pop() ?? "")),
  );
  const outside = new Set<string>();
  for (const output of Object.values(metafile.outputs))
    for (const imported of output.imports)
      if (imported.external && !imported.path.startsWith("node:")) outside.add(packageOf(imported.path));
  const clashes: string[] = [];
  const seen = new Set<string>();
  const visit = (name: string, from: string, via: string) => {
    const manifestPath = findManifest(name, from);
    if (manifestPath === undefined || seen.has(manifestPath)) return;
    seen.add(manifestPath);
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
    };
    for (const dependency of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })) {
      if (bundled.has(dependency)) clashes.push(`${via} → ${dependency}`);
      visit(dependency, dirname(manifestPath), `${via} → ${dependency}`);
    }
  };
  for (const name of outside) visit(name, code, name);
  if (clashes.length > 0)
    throw new Error(`packages outside the bundle depend on bundled ones (two copies): ${clashes.join(", ")}`);
}

/** Whether a line (up to a point) is inside a comment, as far as its start tells: `//`, `/*` or ` * `. */
function isComment(line: string): boolean {
  const start = line.trimStart();
  return start.startsWith("//") || start.startsWith("/*") || start.startsWith("*");
}

/** The package.json of package `name` as Node finds it from folder `from` (node_modules up the tree). */
function findManifest(name: string, from: string): string | undefined {
  for (let folder = from; ; folder = dirname(folder)) {
    const path = join(folder, "node_modules", name, "package.json");
    if (existsSync(path)) return path;
    if (dirname(folder) === folder) return undefined;
  }
}

if (import.meta.main) {
  const code = process.argv[2] ?? join(import.meta.dirname, "..", "dist");
  const folder = await bundleDist({ code });
  process.stdout.write(`bundle: ${relative(process.cwd(), folder)}\n`);
  process.stdout.write(`hook bundle: ${relative(process.cwd(), await bundleHookPath({ code }))}\n`);
}
