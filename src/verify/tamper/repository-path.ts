/** Repository-relative paths for the tamper screen's readers of commands. Pure. */

import { posix } from "node:path";

/** `path` from `directory`, repository-relative without `./` or a trailing slash; undefined outside it. */
export function repositoryPath(directory: string, path: string): string | undefined {
  if (posix.isAbsolute(path) || path.startsWith("~")) return undefined;
  const joined = posix.normalize(posix.join(directory, path)).replace(/\/+$/, "");
  if (joined === "." || joined === "") return "";
  if (joined === ".." || joined.startsWith("../")) return undefined;
  return joined;
}
