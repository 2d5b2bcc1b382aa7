/** Finds an executable on PATH, as the shell would; undefined when there is none. */
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

export function findExecutable(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const folder of (env.PATH ?? "").split(delimiter)) {
    if (!folder) continue;
    const candidate = join(folder, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}
