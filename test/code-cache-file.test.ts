/**
 * Code cache files (src/files/code-cache-file.ts): what is read back is exactly what was written for the
 * same script text, and nothing else is: another text, damaged or cut data, a FIFO, a symbolic link or an
 * oversized file in its place read as no cache, at once. Writing never follows a link and never throws.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { maximumCacheBytes, nameHash, readCodeCache, writeCodeCache } from "../src/files/code-cache-file.ts";

describe("code cache files", () => {
  test("names: short, stable, and apart for different paths", () => {
    assert.match(nameHash("/a/dist/hooks/hook-main.bundle.js"), /^[0-9a-f]{8}$/);
    assert.equal(nameHash("/a/b"), nameHash("/a/b"));
    assert.notEqual(nameHash("/a/b"), nameHash("/a/c"));
  });

  const root = mkdtempSync(join(tmpdir(), "loopwright-code-cache-"));
  after(() => rmSync(root, { recursive: true, force: true }));
  const source = Buffer.from("(function () { return 1; })");
  const data = Buffer.from("v8 data ".repeat(1000));
  let files = 0;
  const written = () => {
    const file = join(root, `cache-${++files}`, "entry.v8");
    writeCodeCache(file, source, data);
    return file;
  };

  test("reads back what was written for the same text, and nothing for another text", () => {
    const file = written();
    assert.deepEqual(readCodeCache(file, source), data);
    assert.equal(readCodeCache(file, Buffer.from("(function () { return 2; })")), undefined);
    assert.equal(readCodeCache(join(root, "missing.v8"), source), undefined);
    // No temporary file is left beside it.
    assert.deepEqual(readdirSync(join(root, `cache-${files}`)), ["entry.v8"]);
  });

  test("damaged or cut data, or a damaged header, reads as no cache", () => {
    const file = written();
    const whole = readFileSync(file);
    const dataStart = whole.length - 2 * data.length;
    for (const damage of [
      // A bit of either copy of the data, of the text, of the lengths, of the magic line.
      (bytes: Buffer) => bytes.fill(0xff, dataStart + 100, dataStart + 104),
      (bytes: Buffer) => bytes.fill(0xff, bytes.length - 10, bytes.length - 6),
      (bytes: Buffer) => bytes.fill(0x41, dataStart - 5, dataStart - 4),
      (bytes: Buffer) => bytes.fill(0x00, 24, 28),
      (bytes: Buffer) => bytes.fill(0x00, 0, 4),
      // Cut, or grown.
      (bytes: Buffer) => bytes.subarray(0, bytes.length - 1),
      (bytes: Buffer) => bytes.subarray(0, 20),
      (bytes: Buffer) => Buffer.concat([bytes, Buffer.from("x")]),
    ]) {
      writeFileSync(file, damage(Buffer.from(whole)));
      assert.equal(readCodeCache(file, source), undefined);
    }
  });

  test("a text and data larger than one piece of the comparison: read back whole, a byte changed anywhere refused", () => {
    // The text and the data's second copy are compared 64 KB at a time: sizes on and off that boundary,
    // and damage at its edges, in the first and the last piece.
    const piece = 64 * 1024;
    for (const [textBytes, dataBytes] of [
      [2 * piece, 3 * piece],
      [2 * piece + 1, piece - 1],
      [piece - 1, 2 * piece + 7],
    ]) {
      const bigSource = Buffer.alloc(textBytes, "a");
      bigSource.write("(function () {})", 0);
      const bigData = Buffer.from(Array.from({ length: dataBytes }, (_, index) => (index * 7) % 251));
      const file = join(root, `cache-${++files}`, "entry.v8");
      writeCodeCache(file, bigSource, bigData);
      assert.deepEqual(readCodeCache(file, bigSource), bigData);
      const whole = readFileSync(file);
      const textStart = whole.length - 2 * dataBytes - textBytes;
      const secondCopy = whole.length - dataBytes;
      const places = [
        textStart,
        textStart + piece - 1,
        textStart + piece,
        textStart + textBytes - 1,
        textStart + textBytes,
        secondCopy - 1,
        secondCopy,
        secondCopy + piece - 1,
        secondCopy + piece,
        whole.length - 1,
      ].filter((place) => place < whole.length);
      for (const place of places) {
        const damaged = Buffer.from(whole);
        damaged[place] ^= 0x01;
        writeFileSync(file, damaged);
        assert.equal(readCodeCache(file, bigSource), undefined, `byte ${place} of ${whole.length}`);
      }
      // The script's text with one byte changed (the same length) is another text.
      writeFileSync(file, whole);
      const other = Buffer.from(bigSource);
      other[textBytes - 1] = 0x62;
      assert.equal(readCodeCache(file, other), undefined);
      assert.deepEqual(readCodeCache(file, bigSource), bigData);
    }
  });

  test("read into scratch memory (the text's own bytes, as the launcher does): the same data, the same refusals", () => {
    const piece = 64 * 1024;
    const bigSource = Buffer.alloc(3 * piece + 5, "a");
    const bigData = Buffer.from(Array.from({ length: 2 * piece + 3 }, (_, index) => (index * 7) % 251));
    const file = join(root, `cache-${++files}`, "entry.v8");
    writeCodeCache(file, bigSource, bigData);
    const whole = readFileSync(file);
    const read = (bytes: Buffer) => {
      writeFileSync(file, bytes);
      const text = Buffer.from(bigSource);
      return readCodeCache(file, text, text);
    };
    assert.deepEqual(read(whole), bigData);
    // The text compared before the data is read over it; the data's copies compared after.
    for (const place of [
      40,
      whole.length - 2 * bigData.length - 1,
      whole.length - bigData.length - 1,
      whole.length - 1,
    ]) {
      const damaged = Buffer.from(whole);
      damaged[place] ^= 0x01;
      assert.equal(read(damaged), undefined, `byte ${place} of ${whole.length}`);
    }
    // Scratch smaller than the data: the data is read into memory of its own.
    const small = Buffer.alloc(10);
    writeFileSync(file, whole);
    assert.deepEqual(readCodeCache(file, bigSource, small), bigData);
  });

  test("a FIFO, a symbolic link or an oversized file in its place reads as no cache, at once", () => {
    const fifo = join(root, "fifo.v8");
    assert.equal(spawnSync("mkfifo", [fifo]).status, 0);
    assert.equal(readCodeCache(fifo, source), undefined);
    const link = join(root, "link.v8");
    symlinkSync(written(), link);
    assert.equal(readCodeCache(link, source), undefined);
    const large = written();
    truncateSync(large, maximumCacheBytes + 1);
    assert.equal(readCodeCache(large, source), undefined);
  });

  test("writing replaces a symbolic link at the file's place, never its target", () => {
    const victim = join(root, "victim.txt");
    writeFileSync(victim, "precious\n");
    const folder = join(root, "planted");
    const file = join(folder, "entry.v8");
    writeCodeCache(join(folder, "other.v8"), source, data);
    symlinkSync(victim, file);
    writeCodeCache(file, source, data);
    assert.equal(readFileSync(victim, "utf8"), "precious\n");
    assert.deepEqual(readCodeCache(file, source), data);
  });

  test("a file in the place of the folder: nothing is kept, nothing throws", () => {
    const blocker = join(root, "blocker");
    writeFileSync(blocker, "");
    writeCodeCache(join(blocker, "entry.v8"), source, data);
    assert.equal(readCodeCache(join(blocker, "entry.v8"), source), undefined);
  });
});
