import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import { changedFiles, diffText, normalizeDiff, normalizedDiffHash } from "../src/git/diffs.ts";
import { git } from "../src/git/git.ts";
import { commitEverything, newRepository, writeFiles } from "./git-fixtures.ts";

const lines = (count: number, prefix = "line") =>
  Array.from({ length: count }, (_, index) => `${prefix} ${index}\n`).join("");

/** The diff of one edit to `file`: `before` committed, then `after`. */
async function diffOf(file: string, before: string, after: string): Promise<string> {
  const root = await newRepository({ [file]: before });
  const from = await git(["rev-parse", "HEAD"], root, { trim: true });
  await writeFiles(root, { [file]: after });
  const to = await commitEverything(root, "edit");
  return diffText(root, from, to);
}

describe("changedFiles", () => {
  it("lists added, modified, deleted and both sides of renames, sorted", async () => {
    const root = await newRepository({ "b.txt": lines(20), "keep.txt": "1\n", "gone.txt": "bye\n" });
    const from = await git(["rev-parse", "HEAD"], root, { trim: true });
    await writeFiles(root, { "renamed/.keep": "" });
    await git(["mv", "b.txt", "renamed/b.txt"], root);
    await writeFiles(root, { "keep.txt": "2\n", "a-new.txt": "new\n" });
    await git(["rm", "--quiet", "gone.txt"], root);
    const to = await commitEverything(root, "changes");
    assert.deepEqual(await changedFiles(root, from, to), [
      "a-new.txt",
      "b.txt",
      "gone.txt",
      "keep.txt",
      "renamed/.keep",
      "renamed/b.txt",
    ]);
    assert.deepEqual(await changedFiles(root, to, to), []);
  });
});

describe("diffText", () => {
  it("prints a plain unified diff whatever the user's diff settings", async () => {
    const root = await newRepository({ "app.ts": "const a = 1;\n" });
    await git(["config", "color.ui", "always"], root);
    await git(["config", "diff.noprefix", "true"], root);
    const from = await git(["rev-parse", "HEAD"], root, { trim: true });
    await writeFiles(root, { "app.ts": "const a = 2;\n" });
    const to = await commitEverything(root, "edit");
    const text = await diffText(root, from, to);
    assert.match(text, /^diff --git a\/app\.ts b\/app\.ts\n/);
    assert.match(text, /\n-const a = 1;\n\+const a = 2;\n$/);
    assert.equal(text.includes("\u001b["), false);
  });
});

describe("normalizeDiff", () => {
  it("ignores whitespace-only and blank-line edits", async () => {
    const code = "function f() {\n  return 1;\n}\n";
    assert.equal(normalizeDiff(await diffOf("f.js", code, "function f() {\n\n    return 1;  \n}\n")), "");
  });

  it("ignores comment-only edits in many languages", async () => {
    const js = "const a = 1;\n";
    assert.equal(
      normalizeDiff(await diffOf("a.js", js, `// note\n/* block */\n/**\n * doc\n */\n${js}`)),
      "",
    );
    assert.equal(normalizeDiff(await diffOf("a.py", "x = 1\n", "# why\nx = 1\n")), "");
    assert.equal(normalizeDiff(await diffOf("a.sql", "select 1;\n", "-- why\nselect 1;\n")), "");
    assert.equal(normalizeDiff(await diffOf("a.lisp", "(f)\n", ";; why\n(f)\n")), "");
    assert.equal(normalizeDiff(await diffOf("a.html", "<p/>\n", "<!-- why -->\n<p/>\n")), "");
  });

  it("keeps code edits, including code that looks a little like a comment", async () => {
    assert.equal(
      normalizeDiff(await diffOf("a.js", "const a = 1;\n", "const a = 2;\n")),
      "file a.js\n-consta=1;\n+consta=2;\n",
    );
    assert.notEqual(normalizeDiff(await diffOf("a.c", "int x;\n", "#include <stdio.h>\nint x;\n")), "");
    assert.notEqual(normalizeDiff(await diffOf("a.c", "int x;\n", "int x;\n*p = 1;\n")), "");
    assert.notEqual(normalizeDiff(await diffOf("a.js", "f();\n", "f(); // and more\ng();\n")), "");
    assert.notEqual(normalizeDiff(await diffOf("README.md", "# Title\n", "# Title\n\n* a new bullet\n")), "");
  });

  it("does not depend on where the change sits in the file", async () => {
    const edit = (before: string) =>
      diffOf("app.ts", `${before}const limit = 1;\n`, `${before}const limit = 2;\n`);
    const near = await edit("");
    const far = await edit(lines(40, "// filler"));
    assert.notEqual(near, far);
    assert.equal(normalizeDiff(near), normalizeDiff(far));
  });

  it("counts reordered lines and renames as changes", async () => {
    assert.notEqual(
      normalizeDiff(await diffOf("a.js", "first();\nsecond();\n", "second();\nfirst();\n")),
      "",
    );
    const renamed = [
      "diff --git a/old.ts b/new.ts",
      "similarity index 100%",
      "rename from old.ts",
      "rename to new.ts",
      "",
    ].join("\n");
    assert.equal(normalizeDiff(renamed), "file new.ts\nrename old.ts -> new.ts\n");
  });

  it("is empty for an empty diff", () => {
    assert.equal(normalizeDiff(""), "");
  });
});

describe("normalizedDiffHash", () => {
  it("hashes the same for the same change at other line numbers, differently for other code", async () => {
    const hashOf = async (before: string, after: string) => {
      const root = await newRepository({ "app.ts": before });
      const from = await git(["rev-parse", "HEAD"], root, { trim: true });
      await writeFiles(root, { "app.ts": after });
      return normalizedDiffHash(root, from, await commitEverything(root, "edit"));
    };
    const filler = lines(30, "const filler =");
    const first = await hashOf("let x = 1;\n", "let x = 2;\n");
    const moved = await hashOf(`${filler}let x = 1;\n`, `${filler}let x = 2;\n`);
    const other = await hashOf("let x = 1;\n", "let x = 3;\n");
    assert.match(first, /^[0-9a-f]{64}$/);
    assert.equal(first, moved);
    assert.notEqual(first, other);
  });

  it("gives an empty diff the hash of the empty string", async () => {
    const root = await newRepository();
    const head = await git(["rev-parse", "HEAD"], root, { trim: true });
    assert.equal(await normalizedDiffHash(root, head, head), createHash("sha256").update("").digest("hex"));
  });
});
