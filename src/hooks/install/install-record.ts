/**
 * What `init claude` added to a checkout, kept in `.loopwright/installed.json` so that `--remove` puts
 * every file back exactly as it was: a file still as `init claude` left it is restored byte for byte
 * (or deleted if it did not exist); a file edited since loses only loopwright's part.
 */
import { readFileSync, writeFileSync } from "../../files/node-fs.ts";

export interface FileChange {
  /** The content before the first `init claude`; null when the file did not exist. */
  before: string | null;
  /** The content as the last `init claude` left it. */
  after: string;
}

export interface InstallRecord {
  version: 1;
  /** By path relative to the checkout root. */
  files: Record<string, FileChange>;
  /** Folders `init claude` created (relative), removed again when empty. */
  createdFolders: string[];
}

export function readInstallRecord(path: string): InstallRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(path, "utf8")) as InstallRecord;
    return record?.version === 1 && typeof record.files === "object" ? record : undefined;
  } catch {
    return undefined;
  }
}

export function writeInstallRecord(path: string, record: InstallRecord): void {
  writeFileSync(path, `${JSON.stringify(record, null, 2)}\n`);
}
