/**
 * The spec parser (spec-file.ts), imported once per process: from its one-file bundle in a build
 * (scripts/bundle-spec-parser.ts) while the bundle is what the modules beside it would load, else from
 * the modules, without zod's translated messages (zod-without-locales.ts).
 */
import { readFileSync } from "../files/node-fs.ts";
import { withoutZodLocales } from "./zod-without-locales.ts";

type SpecParser = typeof import("./spec-file.ts");

let parser: Promise<SpecParser> | undefined;

/** The bundle's file and its manifest's, in the folder of spec-file (core/). */
export const specParserBundle = { file: "spec-file.bundle.js", manifest: "spec-file.bundle.json" };

/** spec-file.ts, imported once per process; see the file's comment. */
export function importSpecParser(): Promise<SpecParser> {
  parser ??= importBundle().then((bundled) => bundled ?? importWithoutLocales());
  return parser;
}

/** The bundle, when there is one and every module it holds is unchanged; else undefined. */
async function importBundle(): Promise<SpecParser | undefined> {
  let manifest: { modules?: unknown };
  try {
    manifest = JSON.parse(readFileSync(new URL(specParserBundle.manifest, import.meta.url), "utf8"));
  } catch {
    return undefined;
  }
  try {
    const modules = Object.entries(manifest.modules ?? {});
    if (modules.length === 0) return undefined;
    const { createHash } = process.getBuiltinModule("node:crypto");
    const codeFolder = new URL("../", import.meta.url);
    for (const [path, digest] of modules) {
      if (path.startsWith("/") || path.split("/").includes("..")) return undefined;
      const bytes = readFileSync(new URL(path, codeFolder));
      if (createHash("sha256").update(bytes).digest("hex") !== digest) return undefined;
    }
    return (await import(new URL(specParserBundle.file, import.meta.url).href)) as SpecParser;
  } catch {
    return undefined;
  }
}

function importWithoutLocales(): Promise<SpecParser> {
  return withoutZodLocales(() => import("./spec-file.ts"));
}
