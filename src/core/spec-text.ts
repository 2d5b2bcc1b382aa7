/**
 * A spec file's text as the parser and the spec cache read it: a regular file of at most 1 MiB. Its own
 * module, holding no state, so that the parser (and its bundle) need not load the spec cache, which the
 * read-only commands' bundle holds (scripts/bundle-read-commands.ts): one copy of it per process.
 */
import { resolve } from "node:path";
import { SpecError } from "../errors.ts";
import { readRegularFileSync } from "../files/read-regular-file.ts";

/** A spec file larger than this is refused unread: specs are a page or two, not megabytes. */
export const maximumSpecBytes = 1024 * 1024;

/** The spec's text: a regular file, size-capped (a FIFO, a device or a huge file is a spec error). */
export async function readSpecText(path: string): Promise<string> {
  // Synchronous: one small file, and nothing else to do meanwhile (four round trips to the thread pool).
  const read = readRegularFileSync(resolve(path), { maximumBytes: maximumSpecBytes });
  if (!read.ok) throw new SpecError([`${path}: ${read.problem}`]);
  return read.text;
}
