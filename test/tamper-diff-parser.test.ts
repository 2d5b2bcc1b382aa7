import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseUnifiedDiff } from "../src/verify/tamper/unified-diff.ts";
import { type Changes, change, type Files, text } from "./fixtures/tamper/git-diff.ts";

const diffOf = (before: Files, after: Changes) => change(before, after).diff();

const numbered = (count: number) => text(...Array.from({ length: count }, (_, index) => `line ${index + 1}`));

describe("parseUnifiedDiff on real git output", () => {
  it("numbers added, removed and context lines on their own side", async () => {
    const before = numbered(20);
    const after = before
      .replace("line 5\n", "line 5\nnew a\nnew b\n")
      .replace("line 15\n", "")
      .replace("line 18", "line eighteen");
    const [file] = parseUnifiedDiff(await diffOf({ "f.txt": before }, { "f.txt": after }));
    assert.equal(file.path, "f.txt");
    assert.equal(file.status, "modified");
    const changed = file.hunks.flatMap((hunk) => hunk.lines.filter((line) => line.sign !== " "));
    assert.deepEqual(changed, [
      { sign: "+", text: "new a", newLine: 6 },
      { sign: "+", text: "new b", newLine: 7 },
      { sign: "-", text: "line 15", oldLine: 15 },
      { sign: "-", text: "line 18", oldLine: 18 },
      { sign: "+", text: "line eighteen", newLine: 19 },
    ]);
    const context = file.hunks[0].lines.find((line) => line.text === "line 6");
    assert.deepEqual(context, { sign: " ", text: "line 6", oldLine: 6, newLine: 8 });
  });

  it("reads added, deleted and renamed files, and lines that look like headers", async () => {
    const moved = numbered(12);
    const diff = await diffOf(
      { "gone.txt": "bye\n", "old/name.txt": moved, "keep.txt": "-- a\n++ b\n" },
      {
        "gone.txt": null,
        "old/name.txt": null,
        "new/name.txt": moved.replace("line 3", "line three"),
        "added.txt": "--- not a header\n+++ nor this\n",
        "keep.txt": "--- a\n++ b\n",
      },
    );
    const files = parseUnifiedDiff(diff).map((file) => ({
      path: file.path,
      oldPath: file.oldPath,
      status: file.status,
      changed: file.hunks.flatMap((hunk) =>
        hunk.lines.filter((line) => line.sign !== " ").map((line) => `${line.sign}${line.text}`),
      ),
    }));
    assert.deepEqual(files, [
      {
        path: "added.txt",
        oldPath: "added.txt",
        status: "added",
        changed: ["+--- not a header", "++++ nor this"],
      },
      { path: "gone.txt", oldPath: "gone.txt", status: "deleted", changed: ["-bye"] },
      { path: "keep.txt", oldPath: "keep.txt", status: "modified", changed: ["--- a", "+--- a"] },
      {
        path: "new/name.txt",
        oldPath: "old/name.txt",
        status: "renamed",
        changed: ["-line 3", "+line three"],
      },
    ]);
  });

  it("reads paths with spaces, non-ASCII letters and quotes, and a missing final newline", async () => {
    const diff = await diffOf(
      { "dir with space/a b.txt": "1\n", "café.txt": "1\n", 'say "hi".txt': "1" },
      { "dir with space/a b.txt": "2\n", "café.txt": "2\n", 'say "hi".txt': "2" },
    );
    const files = parseUnifiedDiff(diff);
    assert.deepEqual(
      files.map((file) => file.path),
      ["café.txt", "dir with space/a b.txt", 'say "hi".txt'],
    );
    assert.deepEqual(
      files[2].hunks[0].lines.map((line) => `${line.sign}${line.text}`),
      ["-1", "+2"],
    );
  });

  it("marks binary files and keeps going", async () => {
    const diff = await diffOf(
      { "image.bin": "\u0000\u0001" },
      { "image.bin": "\u0000\u0002", "after.txt": "x\n" },
    );
    const files = parseUnifiedDiff(diff);
    assert.deepEqual(
      files.map((file) => [file.path, file.binary, file.status]),
      [
        ["after.txt", false, "added"],
        ["image.bin", true, "modified"],
      ],
    );
  });
});
