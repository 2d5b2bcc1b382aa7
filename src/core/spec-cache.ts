/**
 * A spec file's validated parse, kept by what it was made from, so that `validate` and `run` of a spec
 * that has not changed load neither the YAML parser nor the schema library (most of their start-up).
 * An entry is used only when everything the parse read is as it was: the spec's text, its folder, the
 * `script:` files of scripted engines, and the code that parsed it (this folder's files, the YAML and
 * schema packages' entry files, Node). Only a valid spec is kept; an invalid one is parsed every time, so its
 * problems are always the parser's own. A cache that cannot be read or written changes nothing.
 */

import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { makeFolders } from "../files/make-folders.ts";
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "../files/node-fs.ts";
import { readRegularFileSync } from "../files/read-regular-file.ts";
import { loopwrightHome } from "../paths.ts";
import type { LoadedSpec, ParsedAnyModeSpec } from "./spec-file.ts";
import { importSpecParser, parserPackageFiles } from "./spec-parser-import.ts";
import { maximumSpecBytes, readSpecText } from "./spec-text.ts";

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

/**
 * When a new entry is written: `write` is called once it is time (and must not be held past the command's
 * end; until then the next command parses the spec again). By default it runs on the next turn of the
 * event loop, once the caller has moved on; `run` holds it until its maker's turn is under way.
 */
export type SpecCacheWriteSchedule = (write: () => void) => void;

const writeSoon: SpecCacheWriteSchedule = (write) => setImmediate(write);

/** Reads, validates and resolves a spec file as `loadSpecFile` does, from the cache when nothing changed. */
export async function loadSpecFileCached(
  path: string,
  home: string = loopwrightHome(),
  schedule: SpecCacheWriteSchedule = writeSoon,
): Promise<LoadedSpec> {
  const loaded = await loadSpecFileForAnyModeCached(path, home, schedule);
  if (loaded.spec.maker) return { ...loaded, spec: { ...loaded.spec, maker: loaded.spec.maker } };
  // Only the parser says what is missing, in its own words (and problem format).
  const { requireMaker } = await importSpecParser();
  return { ...requireMaker(loaded, path), specPath: loaded.specPath };
}

/** `loadSpecFileForAnyMode` (a spec without a maker is valid), from the cache when nothing changed. */
export async function loadSpecFileForAnyModeCached(
  path: string,
  home: string = loopwrightHome(),
  schedule: SpecCacheWriteSchedule = writeSoon,
): Promise<ParsedAnyModeSpec & { specPath: string }> {
  const specPath = resolve(path);
  const text = await readSpecText(path);
  const entryPath = join(home, "cache", "specs", `${pathKey(specPath)}.json`);
  const directory = dirname(specPath);
  const code = codeStamp();
  const cached = readEntry(entryPath);
  if (cached && cached.code === code && cached.directory === directory && cached.text === text) {
    const same =
      cached.packages.every((entry) => packageStamp(entry.path) === entry.stamp) &&
      cached.files.every((file) => readScript(file.path) === file.text);
    if (same) return { ...cached.parsed, specPath };
  }
  const { parseSpecTextForAnyMode } = await importSpecParser();
  const files: SpecCacheEntry["files"] = [];
  const parsed = parseSpecTextForAnyMode(text, path, directory, files);
  // The entry is made now, with the stamps of the packages that parsed (a package updated before the
  // write must not be stamped on this parse), and written when `schedule` says: the answer does not
  // wait for the write.
  let entry: SpecCacheEntry | undefined;
  try {
    const packages = (await parserPackageFiles()).map((file) => ({ path: file, stamp: packageStamp(file) }));
    // Serialised now: a caller may change what it is given.
    entry = { code, packages, directory, text, files, parsed: JSON.parse(JSON.stringify(parsed)) };
  } catch {
    // Without an entry the next command parses the spec again; nothing is lost.
  }
  if (entry) {
    const made = entry;
    schedule(() => writeEntry(home, entryPath, made));
  }
  return { ...parsed, specPath };
}

function readScript(path: string): string | undefined {
  const read = readRegularFileSync(path, { maximumBytes: maximumSpecBytes });
  return read.ok ? read.text : undefined;
}

/**
 * The entry at `entryPath` when it has the shape this code writes; anything else (damaged, older, edited
 * by hand) is no entry, and the spec is parsed again.
 */
function readEntry(entryPath: string): SpecCacheEntry | undefined {
  try {
    const entry = JSON.parse(readFileSync(entryPath, "utf8")) as SpecCacheEntry | null;
    return entry && hasEntryShape(entry) ? entry : undefined;
  } catch {
    return undefined;
  }
}

function hasEntryShape(entry: SpecCacheEntry): boolean {
  const isObject = (value: unknown): value is Record<string, unknown> =>
    typeof value === "object" && value !== null && !Array.isArray(value);
  const spec = isObject(entry.parsed) ? entry.parsed.spec : undefined;
  const hasEngine = (value: unknown) => isObject(value) && typeof value.engine === "string";
  return (
    typeof entry.code === "string" &&
    typeof entry.directory === "string" &&
    typeof entry.text === "string" &&
    Array.isArray(entry.packages) &&
    Array.isArray(entry.files) &&
    entry.files.every(
      (file) => isObject(file) && typeof file.path === "string" && typeof file.text === "string",
    ) &&
    isObject(spec) &&
    typeof spec.name === "string" &&
    typeof spec.goal === "string" &&
    Array.isArray(spec.gates) &&
    (spec.maker === undefined || hasEngine(spec.maker)) &&
    (spec.verifier === undefined || hasEngine(spec.verifier)) &&
    typeof entry.parsed.repoPath === "string"
  );
}

/**
 * Written whole or not at all (a temporary file renamed): two processes never read half an entry. The
 * home is created private (0700, as the store creates it) and so are the cache and its entries: an
 * entry holds the spec's text, and the home is trusted like the store (whoever can write it can already
 * change what `resume` runs).
 */
function writeEntry(home: string, entryPath: string, entry: SpecCacheEntry): void {
  try {
    makeFolders(home, 0o700);
    makeFolders(dirname(entryPath), 0o700);
    const temporary = `${entryPath}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(entry), { mode: 0o600 });
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
  const names = readdirSync(folder);
  // Entries are dated (a stat each, hundreds of them) only when there are too many: most writes stat none.
  const tooMany = names.filter((name) => name.endsWith(".json")).length > maximumSpecCacheEntries;
  const entries: { path: string; written: number }[] = [];
  for (const name of names) {
    const isEntry = name.endsWith(".json");
    if (!(isEntry && tooMany) && !name.endsWith(".tmp")) continue;
    const path = join(folder, name);
    const written = statSync(path, { throwIfNoEntry: false })?.mtimeMs;
    if (written === undefined) continue;
    if (isEntry) entries.push({ path, written });
    else if (now - written > 60_000) rmSync(path, { force: true });
  }
  if (entries.length <= maximumSpecCacheEntries) return;
  entries.sort((left, right) => right.written - left.written);
  for (const stale of entries.slice(maximumSpecCacheEntries)) rmSync(stale.path, { force: true });
}

let stamp: string | undefined;
/** `.ts` in a checkout (the sources run), `.js` in the build. */
const extension = import.meta.url.endsWith(".ts") ? ".ts" : ".js";

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
  // The parse also runs these files outside this folder (the size cap and file-type checks, the error).
  const outside = ["../files/read-regular-file", "../errors"].map((name) => {
    const file = fileURLToPath(new URL(`${name}${extension}`, import.meta.url));
    return `${name}:${fileStamp(file)}`;
  });
  const { icu, tz, unicode } = process.versions;
  stamp = [process.version, `icu ${icu} tz ${tz} unicode ${unicode}`, folder, ...files, ...outside].join(
    "\n",
  );
  return stamp;
}

/**
 * A package file's stamp (its entry file, or its package.json) and the version its package.json names (an
 * upgrade that keeps the file's size and time, as a tarball's fixed times can, still changes the version).
 */
function packageStamp(entryFile: string): string {
  let folder = dirname(entryFile);
  for (let depth = 0; depth < 4; depth++) {
    try {
      const manifest = JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as { version?: string };
      if (typeof manifest.version === "string") return `${fileStamp(entryFile)}:${manifest.version}`;
    } catch {}
    folder = dirname(folder);
  }
  return fileStamp(entryFile);
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
