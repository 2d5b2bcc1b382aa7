/**
 * The spec parser (spec-file.ts) imported without zod's translated messages. zod's root module, and
 * `zod/v4/core` that every schema of its classic API imports, re-export its locale index (`z.locales`):
 * 63 message catalogues, 64 of the 95 modules an import of zod loads, of which the spec's problems use
 * only English (zod registers it by default, from `locales/en.js`). There is no lighter import path of
 * zod's classic API. While the parser loads, a load hook serves that index as the English export alone;
 * the hook is removed once the parser has loaded. Schemas, parsing and every message are zod's own.
 *
 * Measured on the development machine (Node 24, compile cache warm, CPU time of `import("zod")`, 6
 * runs each): 103–134 ms with the index, 61–84 ms without it.
 *
 * The index is served so only when it is the one this code knows (a list of `export { default as <code> }
 * from "./<code>.js"` lines that names `en`): a zod whose layout differs loads as it is. A process that
 * has loaded zod already (a service) keeps the zod it has; one that has not and loads zod through this
 * parser has `z.locales.en` alone, which nothing in loopwright reads.
 */
import { readFileSync } from "../files/node-fs.ts";

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

/** The English-only index for zod's locale index, or undefined to leave zod as it is. */
export function englishOnlyIndex(indexText: string): string | undefined {
  const lines = indexText.split("\n").filter((line) => line.trim() !== "");
  const known = /^export \{ default as [A-Za-z]+ \} from "\.\/[A-Za-z-]+\.js";$/;
  if (lines.length === 0 || !lines.every((line) => known.test(line.trim()))) return undefined;
  const english = 'export { default as en } from "./en.js";';
  return lines.some((line) => line.trim() === english) ? `${english}\n` : undefined;
}

async function importWithoutLocales(): Promise<SpecParser> {
  const { registerHooks } = process.getBuiltinModule("node:module");
  let hooks: { deregister(): void } | undefined;
  try {
    const indexUrl = new URL("./v4/locales/index.js", import.meta.resolve("zod")).href;
    const source = englishOnlyIndex(readFileSync(new URL(indexUrl), "utf8"));
    if (source !== undefined && typeof registerHooks === "function") {
      hooks = registerHooks({
        load: (url, context, nextLoad) =>
          url === indexUrl ? { format: "module", source, shortCircuit: true } : nextLoad(url, context),
      });
    }
  } catch {
    // No index where this code looks for it: zod loads as it is.
  }
  try {
    return await import("./spec-file.ts");
  } finally {
    hooks?.deregister();
  }
}
