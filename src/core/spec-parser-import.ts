/**
 * The spec parser (spec-file.ts), imported once per process: from its one-file bundle in a build
 * (scripts/bundle-spec-parser.ts) while the bundle is what the modules beside it would load, else from
 * the modules, without zod's translated messages (zod-without-locales.ts).
 *
 * The bundle holds its own copy of the parser's packages (yaml, zod, croner). It is what the modules
 * would load only while every code module it holds is unchanged (its size, and its contents against the
 * manifest's digest whenever a size or time is not the one last seen: a rebuild by tsc alone, or a
 * same-size edit, leaves the bundle stale) and each package Node would resolve from here has the version the
 * bundle was built with (an `npm update` or `npm audit fix` of one reaches the parse at once, through the
 * modules). Anything else, unreadable or unexpected, parses through the modules.
 *
 * The bundle is a script compiled here, so that its code cache can be made after a parse, when the
 * functions the parse ran are compiled (most of them lazily, at their first call): made after the
 * process's first parse that returned, kept in Node's compile cache folder (in its subfolder for this
 * Node, V8 and flags) per bundle path (code-cache-file.ts: used only for the text it was made from, whole
 * and undamaged), and written when there was none, it was for another text, or V8 refused it. It holds
 * what that parse compiled: after a plain spec's (plain-spec.ts), no zod (`<name>.plain.v8`: 430 KB of V8
 * data against 628 KB, deserialized at every parse's start); the first parse that needs zod (a spec that
 * is not plain, a script file) compiles zod's path lazily, once, and replaces it with one that holds zod
 * too (`<name>.v8`), which every later parse uses, plain or not.
 * Where it cannot be kept (a folder that cannot be written), each parse compiles the bundle from scratch,
 * a few ms more than the modules, whose compiled code Node's own cache keeps. With Node's compile cache off (NODE_DISABLE_COMPILE_CACHE=1, or a
 * command run without bin/loopwright.js) none is kept.
 */
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BundleManifest, bundleIsCurrent } from "../files/bundle-freshness.ts";
import { nameHash, readCodeCache, writeCodeCache } from "../files/code-cache-file.ts";
import { readFileSync, rmSync } from "../files/node-fs.ts";
import { withoutZodLocales } from "./zod-without-locales.ts";

type SpecParser = typeof import("./spec-file.ts");

/** The packages whose code the parse runs. */
export const parserPackages = ["yaml", "zod", "croner"] as const;

/**
 * The bundle's file and its manifest's, in the folder of spec-file (core/), and the modules the bundle
 * holds no copy of: it gets them as `require(<name>)`, with the name relative to the code folder.
 */
export const specParserBundle = {
  file: "spec-file.bundle.cjs",
  manifest: "spec-file.bundle.json",
  externals: ["errors"],
} as const;

/**
 * What the bundle's manifest says (scripts/bundle-spec-parser.ts writes it): the code modules it holds,
 * by their paths relative to the bundle's folder, with their sizes and a digest of their contents, as
 * `bundleIsCurrent` checks them (bundle-freshness.ts: a stamp vouches for unchanged sizes and times, so
 * a parse reads no module and loads no node:crypto until a module's size or time changes).
 */
export interface SpecParserManifest extends BundleManifest {
  /** Each of `parserPackages`, with the version the bundle holds. */
  packages: Record<string, string>;
}

interface LoadedParser {
  parser: SpecParser;
  /** Files whose stamps say that the parser's packages are still the ones that parsed. */
  packageFiles: () => string[];
}

let loading: Promise<LoadedParser> | undefined;

function load(): Promise<LoadedParser> {
  loading ??= importBundle().then(
    async (bundled) =>
      bundled ?? {
        parser: await withoutZodLocales(() => import("./spec-file.ts")),
        packageFiles: () => parserPackages.map((name) => fileURLToPath(import.meta.resolve(name))),
      },
  );
  return loading;
}

/** spec-file.ts, imported once per process; see the file's comment. */
export async function importSpecParser(): Promise<SpecParser> {
  return (await load()).parser;
}

/**
 * Files whose stamps (size, time, the package's version) tell whether the packages of the parser this
 * process loaded are unchanged: for the bundle, the packages' manifests it checked; for the modules, the
 * packages' entry files. Read when a parse is kept (spec-cache.ts), so that the stamps are those of the
 * code that parsed.
 */
export async function parserPackageFiles(): Promise<string[]> {
  return (await load()).packageFiles();
}

/** The bundle, when there is one and it is what the modules would load (see above); else undefined. */
async function importBundle(): Promise<LoadedParser | undefined> {
  try {
    const manifest = JSON.parse(
      readFileSync(new URL(specParserBundle.manifest, import.meta.url), "utf8"),
    ) as Partial<SpecParserManifest> | null;
    const bundle = fileURLToPath(new URL(specParserBundle.file, import.meta.url));
    if (!isManifest(manifest) || !bundleIsCurrent(bundle, manifest)) return undefined;
    const packageFiles = bundledPackagesInPlace(manifest.packages);
    if (!packageFiles) return undefined;
    const parser = await runBundle(bundle);
    return { parser, packageFiles: () => packageFiles };
  } catch {
    return undefined;
  }
}

/**
 * The bundle's exports, from its text compiled with its code cache when one is kept; the cache is
 * (re)written after its first parse, when none was used.
 */
async function runBundle(file: string): Promise<SpecParser> {
  const { Script } = process.getBuiltinModule("node:vm");
  const { createRequire, getCompileCacheDir } = process.getBuiltinModule("node:module");
  const bytes = readFileSync(file);
  const text = bytes.toString("utf8");
  const cacheFolder = getCompileCacheDir?.();
  const cacheName =
    cacheFolder === undefined
      ? undefined
      : join(cacheFolder, "loopwright", `${basename(file)}.${nameHash(file)}`);
  const withSchemas = cacheName && `${cacheName}.v8`;
  const plainOnly = cacheName && `${cacheName}.plain.v8`;
  let held: "schemas" | "plain" | undefined;
  let cachedData: Buffer | undefined;
  if (withSchemas !== undefined && plainOnly !== undefined) {
    cachedData = readCodeCache(withSchemas, bytes);
    if (cachedData !== undefined) held = "schemas";
    else {
      // Read over the bundle's bytes (their text is taken): memory touched already reads faster. Not the
      // first read: it may leave them changed, and a cache with zod's path is larger than they are.
      cachedData = readCodeCache(plainOnly, bytes, bytes);
      if (cachedData !== undefined) held = "plain";
    }
  }
  // The wrapper on a line of its own, the text's lines numbered as in the file (stack traces).
  const script = new Script(`(function (exports, require, module) {\n${text}\n})`, {
    filename: file,
    lineOffset: -1,
    cachedData,
    // No importModuleDynamically: the build refuses a bundle with an import(), and the loader that needs
    // no flag makes Node print an experimental warning at the first one.
  });
  const externals = new Map<string, unknown>();
  for (const [name, load] of [["errors", () => import("../errors.ts")]] as const)
    externals.set(name, await load());
  const requireBesideBundle = createRequire(file);
  const module = { exports: {} as Record<string, unknown> };
  (script.runInThisContext() as (exports: unknown, require: unknown, module: unknown) => void)(
    module.exports,
    (name: string) => (externals.has(name) ? externals.get(name) : requireBesideBundle(name)),
    module,
  );
  if (script.cachedDataRejected === true) held = undefined;
  // The text compiled, as bytes (the bundle's own: esbuild writes ASCII; `bytes` may hold no more).
  const compiled = () => Buffer.from(text, "utf8");
  if (withSchemas === undefined || plainOnly === undefined || held === "schemas")
    return module.exports as SpecParser;
  return keepCodeCacheAfterFirstParse(module.exports, () => {
    const schemasUsed = module.exports.specSchemasUsed;
    if (typeof schemasUsed === "function" && schemasUsed() === true) {
      writeCodeCache(withSchemas, compiled(), script.createCachedData());
      try {
        rmSync(plainOnly, { force: true });
      } catch {}
    } else if (held === undefined) writeCodeCache(plainOnly, compiled(), script.createCachedData());
  });
}

/** The parser's functions that parse a spec whole: the code cache is made after one of them parsed. */
const parsingFunctions = new Set([
  "loadSpecFile",
  "loadSpecFileForAnyMode",
  "parseSpecText",
  "parseSpecTextForAnyMode",
]);

/**
 * `exports` with each parsing function wrapped so that `keep` runs once, a turn after the first of them
 * returned a parse: a parse that threw (a YAML syntax error stops before the schema) or another function
 * (`requireMaker`) compiles too little of the parser for a cache that is then kept as it is.
 */
function keepCodeCacheAfterFirstParse(exports: Record<string, unknown>, keep: () => void): SpecParser {
  let kept = false;
  const keepSoon = () => {
    if (kept) return;
    kept = true;
    setImmediate(keep);
  };
  const wrapped = { ...exports };
  for (const name of parsingFunctions) {
    const parse = exports[name];
    if (typeof parse !== "function") continue;
    wrapped[name] = (...args: unknown[]) => {
      const result: unknown = parse(...args);
      if (result instanceof Promise) result.then(keepSoon, () => {});
      else keepSoon();
      return result;
    };
  }
  return wrapped as unknown as SpecParser;
}

/** Whether `manifest` has the shape the build writes, with at least one module. */
function isManifest(manifest: Partial<SpecParserManifest> | null): manifest is SpecParserManifest {
  const modules = manifest?.modules;
  return (
    typeof modules === "object" &&
    modules !== null &&
    Object.keys(modules).length > 0 &&
    Object.values(modules).every((size) => typeof size === "number") &&
    typeof manifest?.digest === "string" &&
    typeof manifest.packages === "object" &&
    manifest.packages !== null
  );
}

/**
 * The manifest (package.json) of each parser package, as Node resolves a bare name from this folder (the
 * nearest `node_modules/<name>` going up), when each has the version the bundle holds; else undefined.
 */
function bundledPackagesInPlace(versions: Record<string, unknown>): string[] | undefined {
  const found: string[] = [];
  for (const name of parserPackages) {
    const nearest = nearestPackage(name, dirname(fileURLToPath(import.meta.url)));
    if (!nearest || typeof versions[name] !== "string" || nearest.version !== versions[name])
      return undefined;
    found.push(nearest.manifest);
  }
  return found;
}

/**
 * `node_modules/<name>/package.json` in `from` or the nearest folder above it that has one, and the
 * version it names (undefined when it names none or cannot be parsed).
 */
export function nearestPackage(
  name: string,
  from: string,
): { manifest: string; version?: unknown } | undefined {
  for (let folder = from; ; folder = dirname(folder)) {
    if (basename(folder) !== "node_modules") {
      const manifest = join(folder, "node_modules", name, "package.json");
      let text: string | undefined;
      try {
        text = readFileSync(manifest, "utf8");
      } catch {}
      if (text !== undefined) {
        try {
          return { manifest, version: (JSON.parse(text) as { version?: unknown } | null)?.version };
        } catch {
          return { manifest };
        }
      }
    }
    if (dirname(folder) === folder) return undefined;
  }
}
