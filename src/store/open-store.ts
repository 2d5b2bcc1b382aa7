import { UsageError } from "../errors.ts";
import { makeFolders } from "../files/make-folders.ts";
import { homeLayout } from "../paths.ts";
import { openSqliteStore } from "./sqlite-store.ts";
import type { Store } from "./store.ts";

/**
 * Opens the store under loopwright's home folder (see `loopwrightHome`): creates the folder if
 * missing (mode 0700: timelines hold prompts and command output) and opens the embedded SQLite store
 * at `homeLayout(home).database`, migrating its schema. Throws `UsageError` when the folder cannot be
 * made (it names the folder and the variable that chose it) or the database was written by a newer
 * loopwright.
 */
export async function openStore(home: string): Promise<Store> {
  // Synchronous: node:fs/promises (and the readline and stream modules it loads) stays off `ls` and `show`.
  try {
    makeFolders(home, 0o700);
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UsageError(
      `cannot create loopwright's home folder ${home} (${why}); set LOOPWRIGHT_HOME to a folder you can write`,
    );
  }
  return openSqliteStore(homeLayout(home).database);
}
