/**
 * The byte filter's tables and WebAssembly module bytes made ahead, by `npm run build`
 * (scripts/build-trigger-filter-data.ts), into `trigger-filter-data.json` beside the compiled modules:
 * a fresh process reads them instead of making them (the tables' bucket search and the module's
 * assembly cost 2–4 ms of CPU on the way to the first gate's digest, run through V8's interpreter).
 *
 * The file is used only when it matches what this code would build: the same triggers, made by the
 * same code (the sizes of the modules that make it, as they are beside it now), its bytes undamaged (a
 * checksum of them). Anything else (no file, as when running from src/; a file from another build; a damaged
 * or truncated one) is ignored, and the filter builds them as without it.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { buckets, checksBytes, checksStart, prefixBytes } from "./trigger-filter-layout.ts";
import { filterModuleBytes } from "./trigger-filter-module.ts";
import { teddyTables } from "./trigger-filter-tables.ts";

/** The file's name, beside the modules. */
export const filterDataFileName = "trigger-filter-data.json";
/** What the file holds, made ahead for one list of triggers (Latin-1, as the filter keeps them). */
export interface FilterData {
  /** The triggers (the filter's minimal list), joined by newlines. */
  triggers: string;
  tables: Uint8Array;
  /** The module with the relaxed swizzle, and with the plain one (see `filterModuleBytes`). */
  relaxedModule: Uint8Array;
  plainModule: Uint8Array;
}

/**
 * The file as JSON, its bytes in base64. Of the tables only the two parts that are not zeros: the
 * nibble tables (from 0) and the buckets' checks (from `checksStart`).
 */
interface FilterDataFile {
  format: number;
  /** The size in bytes of each module that makes the file, as beside it when it was made. */
  code: Record<string, number>;
  triggers: string[];
  nibbleTables: string;
  checks: string;
  relaxedModule: string;
  plainModule: string;
  /** `checksum` of the triggers and the byte strings. */
  checksum: number;
}

const fileFormat = 1;
const nibbleTablesBytes = prefixBytes * 32;
const tablesBytes = checksStart + buckets * checksBytes;
/** The modules whose code decides the file's bytes (this one writes and reads it). */
const makingModules = [
  "trigger-filter-data",
  "trigger-filter-layout",
  "trigger-filter-tables",
  "trigger-filter-module",
];

/**
 * Writes the file for `triggers` (the filter's minimal list) into `folder` (a file URL ending in `/`),
 * which must hold the modules that make it (this module's own folder, for `npm run build`).
 */
export function writeFilterData(triggers: readonly string[], folder: URL = ownFolder()): void {
  const tables = teddyTables(triggers);
  if (
    tables.length !== tablesBytes ||
    tables.subarray(nibbleTablesBytes, checksStart).some((byte) => byte !== 0)
  )
    throw new Error("the byte filter's tables are not laid out as trigger-filter-data.ts keeps them");
  const data: FilterData = {
    triggers: triggers.join("\n"),
    tables,
    relaxedModule: filterModuleBytes(true),
    plainModule: filterModuleBytes(false),
  };
  const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
  const file: FilterDataFile = {
    format: fileFormat,
    code: codeSizes(folder),
    triggers: [...triggers],
    nibbleTables: base64(tables.subarray(0, nibbleTablesBytes)),
    checks: base64(tables.subarray(checksStart)),
    relaxedModule: base64(data.relaxedModule),
    plainModule: base64(data.plainModule),
    checksum: checksum(data),
  };
  writeFileSync(new URL(filterDataFileName, folder), `${JSON.stringify(file)}\n`);
}

/**
 * The file in `folder` when it is there, readable and matches the code beside it (see the top of this
 * file), else null. Never throws.
 */
export function readFilterData(folder: URL): FilterData | null {
  try {
    const file = JSON.parse(readFileSync(new URL(filterDataFileName, folder), "utf8")) as FilterDataFile;
    if (file.format !== fileFormat || !Array.isArray(file.triggers)) return null;
    const nibbleTables = Buffer.from(file.nibbleTables, "base64");
    const checks = Buffer.from(file.checks, "base64");
    if (nibbleTables.length !== nibbleTablesBytes || checksStart + checks.length !== tablesBytes) return null;
    const tables = new Uint8Array(tablesBytes);
    tables.set(nibbleTables, 0);
    tables.set(checks, checksStart);
    const data: FilterData = {
      triggers: file.triggers.join("\n"),
      tables,
      relaxedModule: Buffer.from(file.relaxedModule, "base64"),
      plainModule: Buffer.from(file.plainModule, "base64"),
    };
    if (checksum(data) !== file.checksum) return null;
    const sizes = codeSizes(folder);
    if (makingModules.some((name) => sizes[name] !== file.code[name])) return null;
    return data;
  } catch {
    return null;
  }
}

let ownData: FilterData | null | undefined;

/** This process's file, beside this module: read once (null when it is not there or does not match). */
export function precomputedFilterData(): FilterData | null {
  if (ownData === undefined) ownData = readFilterData(ownFolder());
  return ownData;
}

function ownFolder(): URL {
  return new URL(".", import.meta.url);
}

/**
 * The sizes of the modules in `folder` that make the file (with this module's extension: .ts or .js).
 * Sizes, as the CLI bundle's manifest checks its modules (scripts/bundle-cli-main.ts): a stat each,
 * where hashing them cost a third of what the file saves; an edit that keeps
 * every size is not seen, and `npm run build` remakes dist/ whole.
 */
function codeSizes(folder: URL): Record<string, number> {
  const extension = import.meta.url.slice(import.meta.url.lastIndexOf("."));
  const path = fileURLToPath(folder);
  const sizes: Record<string, number> = {};
  for (const name of makingModules) sizes[name] = statSync(`${path}${name}${extension}`).size;
  return sizes;
}

/**
 * FNV-1a (32 bits) of the triggers and each byte string the file keeps, with its length: catches a
 * damaged file (a few KB: ~0.1 ms where node:crypto's first hash cost ~0.8 ms).
 */
function checksum(data: FilterData): number {
  let hash = 0x811c9dc5;
  const parts = [
    data.tables.subarray(0, nibbleTablesBytes),
    data.tables.subarray(checksStart),
    data.relaxedModule,
    data.plainModule,
  ];
  for (let index = 0; index < data.triggers.length; index++)
    hash = Math.imul(hash ^ data.triggers.charCodeAt(index), 0x01000193);
  for (const bytes of parts) {
    hash = Math.imul(hash ^ bytes.length, 0x01000193);
    for (let index = 0; index < bytes.length; index++) hash = Math.imul(hash ^ bytes[index], 0x01000193);
  }
  return hash >>> 0;
}
