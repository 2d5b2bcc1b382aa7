/**
 * zod imported without its translated messages. zod's root module, and `zod/v4/core` that every schema
 * of its classic API imports, re-export its locale index (`z.locales`): 63 message catalogues, 64 of the
 * 95 modules an import of zod loads, of which loopwright's messages use only English (zod registers it
 * by default, from `locales/en.js`). There is no lighter import path of zod's classic API. While a load
 * that may bring zod in runs, a load hook serves that index as the English export alone; the hook is
 * removed once the load has settled. Schemas, parsing and every message are zod's own.
 *
 * Measured on the development machine (Node 24, compile cache warm, CPU time of `import("zod")`, 6
 * runs each): 103–134 ms with the index, 61–84 ms without it.
 *
 * The index is served so only when it is the one this code knows (a list of `export { default as <code> }
 * from "./<code>.js"` lines that names `en`): a zod whose layout differs loads as it is. A process that
 * has loaded zod already keeps the zod it has; one that loads zod through here has `z.locales.en`
 * alone, which nothing in loopwright reads. The hook is process-wide while it is registered, and
 * touches nothing but that one file.
 */
import { readFileSync } from "../files/node-fs.ts";

/** The English-only index for zod's locale index, or undefined to leave zod as it is. */
export function englishOnlyIndex(indexText: string): string | undefined {
  const lines = indexText.split("\n").filter((line) => line.trim() !== "");
  const known = /^export \{ default as [A-Za-z]+ \} from "\.\/[A-Za-z-]+\.js";$/;
  if (lines.length === 0 || !lines.every((line) => known.test(line.trim()))) return undefined;
  const english = 'export { default as en } from "./en.js";';
  return lines.some((line) => line.trim() === english) ? `${english}\n` : undefined;
}

/** Runs `load` (an `import()` that may load zod) with zod's locale index served as English alone. */
export async function withoutZodLocales<T>(load: () => Promise<T>): Promise<T> {
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
    return await load();
  } finally {
    hooks?.deregister();
  }
}
