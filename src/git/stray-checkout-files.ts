/**
 * Files that git reads from a checkout's folders although no commit wrote them there: an untracked
 * `.gitattributes` in a folder on the way to tracked files (read-tree obeys it where the index holds
 * none at that level: it can turn the files it writes into CRLF, another encoding, or expand `$Id$`),
 * and a `.git` in such a folder (below the root), which clean never removes and a gate's own git would
 * take as its repository. A gate can keep either through clean (a .gitignore edit, a folder the project
 * ignores), so `checkOut` looks for them in every folder that holds tracked paths, and there for the
 * FIFOs, sockets and device nodes that clean keeps whatever the ignore rules say.
 */
import { readdirSync } from "../files/node-fs.ts";

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
 * The stray entries found in `checkout`'s `folders` (latin1 names, see `trackedFolders`): each folder's
 * untracked `.gitattributes` (not where `attributes` says one is tracked) and, below the root, its `.git`
 * (whatever they are: a file, a symlink, a folder); and every FIFO, socket or device node there, which
 * `git clean` never removes (it lists only files, links and folders) and a gate globbing a folder could
 * block on or be graded on. Returned as full paths, in bytes: remove them without following or opening.
 *
 * The folders are read from the top down, one `readdir` each, and a folder is entered only when its parent
 * listed it as a real folder (never a link): nothing outside the checkout is read. Not covered: special
 * files in untracked folders, which clean removes with their folder unless that folder holds ignored
 * files (then it keeps both), and those in ignored folders (node_modules), which are never read.
 */
export function strayCheckoutFiles(
  checkout: string,
  folders: Iterable<string>,
  attributes: ReadonlySet<string>,
): Buffer[] {
  const tracked = new Set(folders);
  const base = Buffer.from(checkout.endsWith("/") ? checkout : `${checkout}/`);
  const strays: Buffer[] = [];
  const pending = [""];
  for (let folder = pending.pop(); folder !== undefined; folder = pending.pop()) {
    const path = folder === "" ? base : Buffer.concat([base, Buffer.from(`${folder}/`, "latin1")]);
    let entries: import("node:fs").Dirent[];
    try {
      // Names read as latin1 (one character per byte), as `folders` holds them: no Buffer per entry.
      entries = readdirSync(path, { withFileTypes: true, encoding: "latin1" });
    } catch {
      continue; // Gone, or not a folder since its parent was read: nothing of it to look at.
    }
    for (const entry of entries) {
      const name = entry.name;
      const stray =
        (!entry.isFile() && !entry.isSymbolicLink() && !entry.isDirectory()) ||
        (name === attributesName && !attributes.has(folder)) ||
        (name === ".git" && folder !== "");
      if (stray) strays.push(Buffer.concat([path, Buffer.from(name, "latin1")]));
      else if (entry.isDirectory()) {
        const child = folder === "" ? name : `${folder}/${name}`;
        if (tracked.has(child)) pending.push(child);
      }
    }
  }
  return strays;
}
