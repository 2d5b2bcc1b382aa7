/**
 * Files that git reads from a checkout's folders although no commit wrote them there: an untracked
 * `.gitattributes` in a folder on the way to tracked files (read-tree obeys it where the index holds
 * none at that level: it can turn the files it writes into CRLF, another encoding, or expand `$Id$`),
 * and a `.git` in such a folder (below the root), which clean never removes and a gate's own git would
 * take as its repository. A gate can keep either through clean (a .gitignore edit, a folder the project
 * ignores), so `checkOut` looks for them in every folder that holds tracked paths.
 */
import { lstatSync } from "../files/node-fs.ts";

/** The name of the attributes file git reads in every folder. */
export const attributesName = ".gitattributes";

/**
 * The folders (relative, "/" separated, without a trailing slash; "" for the root) that hold the
 * tracked `paths`, and those of them where a `.gitattributes` is tracked. Names are kept as latin1
 * strings: one character per byte, whatever the bytes.
 */
export function trackedFolders(paths: Iterable<string>): { folders: Set<string>; attributes: Set<string> } {
  const folders = new Set<string>([""]);
  const attributes = new Set<string>();
  for (const path of paths) {
    const slash = path.lastIndexOf("/");
    const folder = slash < 0 ? "" : path.slice(0, slash);
    if (path.endsWith(attributesName) && path.length - slash - 1 === attributesName.length)
      attributes.add(folder);
    // A folder is added with all its parents: once known, nothing above it is new.
    if (folders.has(folder)) continue;
    for (let at = path.indexOf("/"); at >= 0; at = path.indexOf("/", at + 1)) folders.add(path.slice(0, at));
  }
  return { folders, attributes };
}

/**
 * The stray files (whatever they are: a file, a symlink, a folder) found in `checkout`'s `folders`
 * (latin1 names, see `trackedFolders`): each folder's untracked `.gitattributes` (not where `attributes`
 * says one is tracked) and, below the root, its `.git`. Returned as full paths, in bytes.
 */
export function strayCheckoutFiles(
  checkout: string,
  folders: Iterable<string>,
  attributes: ReadonlySet<string>,
): Buffer[] {
  const base = checkout.endsWith("/") ? checkout : `${checkout}/`;
  const strays: Buffer[] = [];
  for (const folder of folders) {
    const prefix = Buffer.concat([
      Buffer.from(base),
      Buffer.from(folder === "" ? "" : `${folder}/`, "latin1"),
    ]);
    const names = folder === "" ? [attributesName] : [attributesName, ".git"];
    for (const name of names) {
      if (name === attributesName && attributes.has(folder)) continue;
      const path = Buffer.concat([prefix, Buffer.from(name)]);
      // No exception for a missing file (the usual answer): building one costs more than the lstat.
      if (lstatSync(path, { throwIfNoEntry: false }) !== undefined) strays.push(path);
    }
  }
  return strays;
}
