/**
 * `mkdirSync(path, { recursive: true, mode })` that cannot spin. Node's recursive mkdir (sync and
 * promise alike, Node 24.21) loops forever where a folder's parent exists but mkdir answers ENOENT,
 * as it does under /proc: `LOOPWRIGHT_HOME=/proc/x loopwright ls` used 100% of a core and never
 * returned. Here each missing folder is made in turn, from the deepest one that exists, and the first
 * failure throws (ENOENT, EACCES, ENOTDIR, ... naming that folder). An existing folder is fine; an
 * existing file where a folder should be throws EEXIST, as Node's does.
 */
import { dirname, resolve } from "node:path";
import { existsSync, mkdirSync, statSync } from "./node-fs.ts";

export function makeFolders(path: string, mode?: number): void {
  const missing: string[] = [];
  for (let folder = resolve(path); !existsSync(folder); folder = dirname(folder)) {
    missing.push(folder);
    if (dirname(folder) === folder) break;
  }
  for (const folder of missing.reverse()) {
    try {
      mkdirSync(folder, mode === undefined ? undefined : { mode });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || !statSync(folder).isDirectory()) throw error;
    }
  }
  // A file where the folder should be: mkdir says so (EEXIST), as Node's recursive mkdir does.
  if (!statSync(path).isDirectory()) mkdirSync(path);
}
