/** A tree that is commit `sha`'s with one file's content replaced: for a commit of loopwright's own, made without a checkout. */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { git, gitBytes } from "./git.ts";

/** Writes `content` as a blob and returns the id of `sha`'s tree with `path` (repository-relative) set to it. */
export async function treeWithFile(
  root: string,
  sha: string,
  path: string,
  content: string,
): Promise<string> {
  // node:fs/promises (and the stream modules it loads) is taken here: validate loads this module, for a
  // tasks loop's list, within the read-only commands' bundle (scripts/bundle-read-commands.ts).
  const { mkdtemp, rm } = process.getBuiltinModule("node:fs/promises");
  const folder = await mkdtemp(join(tmpdir(), "loopwright-index-"));
  const env = { GIT_INDEX_FILE: join(folder, "index") };
  try {
    await git(["read-tree", `${sha}^{commit}`], root, { env });
    const blob = await git(["hash-object", "-w", "--stdin"], root, { input: content, trim: true });
    await git(["update-index", "--add", "--cacheinfo", `100644,${blob},${path}`], root, { env });
    return await git(["write-tree"], root, { env, trim: true });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** The content of `path` at commit `sha`, or `undefined` when the commit has no such file. */
export async function fileAt(root: string, sha: string, path: string): Promise<string | undefined> {
  return git(["show", `${sha}:${path}`], root).catch(() => undefined);
}

/**
 * The contents of several files, each named `<commit>:<path>`, in one git run (`cat-file --batch`): a
 * file's text, or undefined for a name that is missing or not a file (a folder, a submodule). Raw
 * contents: no filter or text conversion. A name holding a newline cannot be asked that way and is
 * asked alone.
 */
export async function filesAt(root: string, names: readonly string[]): Promise<(string | undefined)[]> {
  const batched = names.filter((name) => !name.includes("\n"));
  const answers = new Map<string, string | undefined>();
  if (batched.length > 0) {
    const output = await gitBytes(["cat-file", "--batch"], root, {
      input: batched.map((name) => `${name}\n`).join(""),
    });
    let position = 0;
    for (const name of batched) {
      const lineEnd = output.indexOf(10, position);
      if (lineEnd < 0) throw new Error(`git cat-file --batch printed nothing for '${name}'`);
      const header = output.subarray(position, lineEnd).toString("utf8");
      position = lineEnd + 1;
      // `<object> <type> <size>`, or `<name> missing` / `<name> ambiguous` with no content.
      const found = /^[0-9a-f]{40,64} (\S+) (\d+)$/.exec(header);
      if (!found) {
        answers.set(name, undefined);
        continue;
      }
      const size = Number(found[2]);
      const content = output.subarray(position, position + size);
      position += size + 1;
      answers.set(name, found[1] === "blob" ? content.toString("utf8") : undefined);
    }
  }
  for (const name of names) {
    if (answers.has(name)) continue;
    const colon = name.indexOf(":");
    answers.set(name, await fileAt(root, name.slice(0, colon), name.slice(colon + 1)));
  }
  return names.map((name) => answers.get(name));
}
