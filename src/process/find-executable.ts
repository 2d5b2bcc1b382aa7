/** Finds an executable on PATH, as the shell would; undefined when there is none. */

import { delimiter, join } from "node:path";
import { accessSync, constants, existsSync } from "../files/node-fs.ts";

export function findExecutable(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const folder of (env.PATH ?? "").split(delimiter)) {
    if (!folder) continue;
    const candidate = join(folder, name);
    // A folder without it is skipped without an exception (each one built an error and its stack):
    // what is not there cannot be executed either.
    if (!existsSync(candidate)) continue;
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}
