/**
 * Review finding (pre-existing, not from h/iteration): git reads a per-user excludes file by default,
 * `$XDG_CONFIG_HOME/git/ignore` (or `~/.config/git/ignore`), even with no global configuration
 * (GIT_CONFIG_GLOBAL=/dev/null does not turn it off; only `core.excludesFile` does). Gates run
 * unsandboxed as the user, so a gate can write that file and plant a file it names in the gates'
 * checkout: every later `checkOut` keeps the planted file (clean obeys the per-user rule), and the
 * next iteration's gates run with a file that is in no commit. `checkOut` promises that what is left
 * is ignored by the committed rules alone.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";

// What a gate can write: the per-user configuration folder git reads (set before git.ts loads).
const userConfig = await mkdtemp(join(tmpdir(), "loopwright-user-config-"));
process.env.XDG_CONFIG_HOME = userConfig;
const { git } = await import("../src/git/git.ts");
const { checkOut, checkOutTreeOfCommit, openLoopRepository } = await import("../src/git/loop-repository.ts");
const { commitEverything, newFolder, newRepository, writeFiles } = await import("./git-fixtures.ts");

describe("checkOut after a gate wrote the per-user excludes file", () => {
  it("removes a planted file that only the per-user excludes file ignores (a recheck, then the next commit)", async () => {
    const root = await newRepository({ "a.txt": "a\n", ".gitignore": "node_modules/\n" });
    const first = await git(["rev-parse", "HEAD"], root, { trim: true });
    const repository = await openLoopRepository(root, join(await newFolder("private"), "git"));
    const gates = join(await newFolder("gates"), "checkout");
    await checkOut(repository, gates, "gates", first, { detached: true });
    // The hostile gate: a rule in the per-user file, and the file it hides (pytest loads it unasked).
    await mkdir(join(userConfig, "git"), { recursive: true });
    await writeFile(join(userConfig, "git", "ignore"), "conftest.py\n");
    await writeFiles(gates, { "conftest.py": "planted by a gate\n", "node_modules/kept.js": "kept\n" });
    // The recheck of the same commit.
    await checkOut(repository, gates, "gates", first, { detached: true });
    assert.deepEqual((await readdir(gates)).sort(), [".git", ".gitignore", "a.txt", "node_modules"]);
    // The next iteration's commit, checked out from its tree as the commit step does.
    await writeFiles(root, { "b.txt": "b\n" });
    const second = await commitEverything(root, "second");
    const tree = await git(["rev-parse", `${second}^{tree}`], root, { trim: true });
    await writeFiles(gates, { "conftest.py": "planted by a gate\n" });
    await checkOutTreeOfCommit(repository, gates, "gates", tree, Promise.resolve(second), { detached: true });
    assert.deepEqual((await readdir(gates)).sort(), [".git", ".gitignore", "a.txt", "b.txt", "node_modules"]);
  });
});
