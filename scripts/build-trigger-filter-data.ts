/**
 * Makes the digest's byte filter data (tables and WebAssembly module bytes for every format's triggers,
 * src/gates/digest/trigger-filter-data.ts says why) into dist/gates/digest/, with the modules built there,
 * so that the file matches the code beside it. `npm run build` runs it after tsc
 * (`node scripts/build-trigger-filter-data.ts`).
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const folder = pathToFileURL(`${resolve(import.meta.dirname, "../dist/gates/digest")}/`);
const { digestTriggers } = await import(new URL("digest-parser.js", folder).href);
const { minimalTriggers } = await import(new URL("trigger-filter.js", folder).href);
const { writeFilterData } = await import(new URL("trigger-filter-data.js", folder).href);
writeFilterData(minimalTriggers(digestTriggers()), folder);
