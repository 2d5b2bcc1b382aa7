/**
 * A spec file's validated parse, kept by what it was made from, so that `validate` and `run` of a spec
 * that has not changed load neither the YAML parser nor the schema library (most of their start-up).
 * An entry is used only when everything the parse read is as it was: the spec's text, its folder, the
 * `script:` files of scripted engines, and the code that parsed it (this folder's files, the YAML and
 * schema packages' entry files, Node). Only a valid spec is kept; an invalid one is parsed every time, so its
 * problems are always the parser's own. A cache that cannot be read or written changes nothing.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { SpecError } from "../errors.ts";
import { readRegularFileSync } from "../files/read-regular-file.ts";
import { loopwrightHome } from "../paths.ts";
import type { LoadedSpec, ParsedAnyModeSpec } from "./spec-file.ts";

/** A spec file larger than this is refused unread: specs are a page or two, not megabytes. */
export const maximumSpecBytes = 1024 * 1024;

/** The packages whose code the parse runs: an update to any of them makes every entry stale. */
const parserPackages = ["yaml", "zod", "croner"];

/**
 * Entries kept at most: one per spec path, so a home that saw many spec files (the benchmarks, a
 * service fed generated specs) keeps the most recently written and drops the rest.
 */
export const maximumSpecCacheEntries = 256;

/** One spec path's entry: what the parse read, and what it gave. */
interface SpecCacheEntry {
  code: string;
  /** The YAML and schema packages' entry files as the parse found them (`fileStamp`). */
  packages: { path: string; stamp: string }[];
  directory: string;
  text: string;
  /** Files the parse read besides the spec (scripted engines' `script:`), with their text. */
  files: { path: string; text: string }[];
  parsed: ParsedAnyModeSpec;
}

/** Reads, validates and resolves a spec file as `loadSpecFile` does, from the cache when nothing changed. */
export async function loadSpecFileCached(path: string, home: string = loopwrightHome()): Promise<LoadedSpec> {
  const loaded = await loadSpecFileForAnyModeCached(path, home);
  if (loaded.spec.maker) return { ...loaded, spec: { ...loaded.spec, maker: loaded.spec.maker } };
  // Only the parser says what is missing, in its own words (and problem format).
  const { requireMaker } = await import("./spec-file.ts");
  return { ...requireMaker(loaded, path), specPath: loaded.specPath };
}

/** `loadSpecFileForAnyMode` (a spec without a maker is valid), from the cache when nothing changed. */
export async function loadSpecFileForAnyModeCached(
  path: string,
  home: string = loopwrightHome(),
): Promise<ParsedAnyModeSpec & { specPath: string }> {
  const specPath = resolve(path);
  const text = await readSpecText(path);
  const entryPath = join(home, "cache", "specs", `${pathKey(specPath)}.json`);
  const directory = dirname(specPath);
  const code = codeStamp();
  const cached = readEntry(entryPath);
  if (cached && cached.code === code && cached.directory === directory && cached.text === text) {
    const same =
      cached.packages.every((entry) => fileStamp(entry.path) === entry.stamp) &&
      cached.files.every((file) => readScript(file.path) === file.text);
    if (same) return { ...cached.parsed, specPath };
  }
  const { parseSpecTextForAnyMode } = await import("./spec-file.ts");
  const filesRead: string[] = [];
  const parsed = parseSpecTextForAnyMode(text, path, directory, filesRead);
  const files = filesRead.map((file) => ({ path: file, text: readScript(file) }));
  if (files.every((file) => file.text !== undefined)) {
    const entryFiles = files as SpecCacheEntry["files"];
    // Written once the caller has moved on (it waits on git next): the answer does not wait for it.
    setImmediate(() => {
      try {
        const packages = parserPackages.map((name) => {
          const file = fileURLToPath(import.meta.resolve(name));
          return { path: file, stamp: fileStamp(file) };
        });
        writeEntry(entryPath, { code, packages, directory, text, files: entryFiles, parsed });
      } catch {
        // Without an entry the next command parses the spec again; nothing is lost.
      }
    });
  }
  return { ...parsed, specPath };
}

/** The spec's text: a regular file, size-capped (a FIFO, a device or a huge file is a spec error). */
export async function readSpecText(path: string): Promise<string> {
  // Synchronous: one small file, and nothing else to do meanwhile (four round trips to the thread pool).
  const read = readRegularFileSync(resolve(path), { maximumBytes: maximumSpecBytes });
  if (!read.ok) throw new SpecError([`${path}: ${read.problem}`]);
  return read.text;
}

function readScript(path: string): string | undefined {
  const read = readRegularFileSync(path, { maximumBytes: maximumSpecBytes });
  return read.ok ? read.text : undefined;
}

function readEntry(entryPath: string): SpecCacheEntry | undefined {
  try {
    const entry = JSON.parse(readFileSync(entryPath, "utf8")) as SpecCacheEntry | null;
    return Array.isArray(entry?.packages) && Array.isArray(entry.files) ? entry : undefined;
  } catch {
    return undefined;
  }
}

/** Written whole or not at all (a temporary file renamed): two processes never read half an entry. */
function writeEntry(entryPath: string, entry: SpecCacheEntry): void {
  try {
    mkdirSync(dirname(entryPath), { recursive: true });
    const temporary = `${entryPath}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(entry));
    renameSync(temporary, entryPath);
    pruneEntries(dirname(entryPath));
  } catch {
    // Without an entry the next command parses the spec again; nothing is lost.
  }
}

/**
 * Keeps the `maximumSpecCacheEntries` most recently written entries of `folder`, and removes temporary
 * files a killed writer left (older than a minute). Runs after a write, off the answer's path.
 */
function pruneEntries(folder: string): void {
  const now = Date.now();
  const entries: { path: string; written: number }[] = [];
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    const written = statSync(path, { throwIfNoEntry: false })?.mtimeMs;
    if (written === undefined) continue;
    if (name.endsWith(".json")) entries.push({ path, written });
    else if (name.endsWith(".tmp") && now - written > 60_000) rmSync(path, { force: true });
  }
  if (entries.length <= maximumSpecCacheEntries) return;
  entries.sort((left, right) => right.written - left.written);
  for (const stale of entries.slice(maximumSpecCacheEntries)) rmSync(stale.path, { force: true });
}

let stamp: string | undefined;

/**
 * What identifies the parser, with the packages of the entry: Node (time zones come from its ICU) and
 * every file in this folder (the schema and its helpers; a rebuild or an edit changes them).
 */
function codeStamp(): string {
  if (stamp !== undefined) return stamp;
  const folder = dirname(fileURLToPath(import.meta.url));
  const files = readdirSync(folder)
    .sort()
    .map((name) => `${name}:${fileStamp(join(folder, name))}`);
  stamp = [process.version, folder, ...files].join("\n");
  return stamp;
}

/** A file's size and modification time; `-` when it cannot be read. */
function fileStamp(file: string): string {
  try {
    const stats = statSync(file);
    return `${stats.size}:${stats.mtimeMs}`;
  } catch {
    return "-";
  }
}

/** A file name for the spec's path (FNV-1a, twice): entries are checked whole, so a clash only misses. */
function pathKey(path: string): string {
  let first = 0x811c9dc5;
  let second = 0x01000193;
  for (let index = 0; index < path.length; index++) {
    const code = path.charCodeAt(index);
    first = Math.imul(first ^ code, 0x01000193) >>> 0;
    second = Math.imul(second ^ code, 0x5bd1e995) >>> 0;
  }
  return `${first.toString(16).padStart(8, "0")}${second.toString(16).padStart(8, "0")}`;
}
