/**
 * The byte filter's tables and WebAssembly module bytes made ahead, by `npm run build`
 * (scripts/build-trigger-filter-data.ts), into `trigger-filter-data.json` beside the compiled modules:
 * a fresh process reads them instead of making them (the tables' bucket search and the module's
 * assembly cost 2–4 ms of CPU on the way to the first gate's digest, run through V8's interpreter).
 *
 * The file is used only when it matches what this code would build: the same triggers, made by the
 * same code (a hash of the modules that make it, as they are beside it now), its bytes undamaged (a hash
 * of them). Anything else (no file, as when running from src/; a file from another build; a damaged
 * or truncated one) is ignored, and the filter builds them as without it.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
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

/** The file as JSON: its bytes in base64. */
interface FilterDataFile {
  format: number;
  /** `codeFingerprint` of the modules that made it. */
  code: string;
  triggers: string[];
  tables: string;
  relaxedModule: string;
  plainModule: string;
  /** SHA-256 of the triggers and the three byte strings, as `contentHash` makes it. */
  content: string;
}

const fileFormat = 1;
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
  const data: FilterData = {
    triggers: triggers.join("\n"),
    tables: teddyTables(triggers),
    relaxedModule: filterModuleBytes(true),
    plainModule: filterModuleBytes(false),
  };
  const file: FilterDataFile = {
    format: fileFormat,
    code: codeFingerprint(folder),
    triggers: [...triggers],
    tables: Buffer.from(data.tables).toString("base64"),
    relaxedModule: Buffer.from(data.relaxedModule).toString("base64"),
    plainModule: Buffer.from(data.plainModule).toString("base64"),
    content: contentHash(data),
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
    const data: FilterData = {
      triggers: file.triggers.join("\n"),
      tables: Buffer.from(file.tables, "base64"),
      relaxedModule: Buffer.from(file.relaxedModule, "base64"),
      plainModule: Buffer.from(file.plainModule, "base64"),
    };
    if (contentHash(data) !== file.content || codeFingerprint(folder) !== file.code) return null;
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

/** SHA-256 of the modules in `folder` that make the file (with this module's extension: .ts or .js). */
function codeFingerprint(folder: URL): string {
  const extension = import.meta.url.slice(import.meta.url.lastIndexOf("."));
  const hash = createHash("sha256");
  for (const name of makingModules) hash.update(readFileSync(new URL(`${name}${extension}`, folder)));
  return hash.digest("base64");
}

function contentHash(data: FilterData): string {
  const hash = createHash("sha256");
  for (const part of [
    Buffer.from(data.triggers, "latin1"),
    data.tables,
    data.relaxedModule,
    data.plainModule,
  ]) {
    hash.update(`${part.length}:`);
    hash.update(part);
  }
  return hash.digest("base64");
}
