import { mkdirSync } from "../files/node-fs.ts";
import { homeLayout } from "../paths.ts";
import { openSqliteStore } from "./sqlite-store.ts";
import type { Store } from "./store.ts";

/**
 * Opens the store under loopwright's home folder (see `loopwrightHome`): creates the folder if
 * missing (mode 0700: timelines hold prompts and command output) and opens the embedded SQLite store
 * at `homeLayout(home).database`, migrating its schema. Throws `UsageError` when the database was
 * written by a newer loopwright.
 */
export async function openStore(home: string): Promise<Store> {
  // Synchronous: node:fs/promises (and the readline and stream modules it loads) stays off `ls` and `show`.
  mkdirSync(home, { recursive: true, mode: 0o700 });
  return openSqliteStore(homeLayout(home).database);
}
