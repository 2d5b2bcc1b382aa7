/**
 * The file reader's edges: `digestLog` reads a log in pieces of `digestReadBytes`, two buffers taking
 * turns, so lines, triggers, line endings and characters can be cut by a read. Each case puts the cut
 * where it hurts and compares the digest of the file with the digest of the same text given whole,
 * and with the failures the digest gave before reads were double-buffered (the names and lines below).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { digestLog, digestReadBytes } from "../src/gates/digest/digest-log.ts";
import { createDigestParser, digestText } from "../src/gates/digest/digest-parser.ts";
import type { Digest } from "../src/gates/digest/digest-types.ts";

let folder = "";
before(async () => {
  folder = await mkdtemp(join(tmpdir(), "loopwright-digest-read-"));
});
after(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** Noise lines (no trigger) filling exactly `bytes` bytes, each ending in `ending`. */
function filler(bytes: number, ending = "\n"): string {
  const line = `[info] request served in 3 ms${" ".repeat(30)}`;
  const whole = line.length + ending.length;
  const count = Math.floor(bytes / whole) - 1;
  const rest = bytes - count * whole - ending.length;
  return `${`${line}${ending}`.repeat(count)}${"x".repeat(rest)}${ending}`;
}

/**
 * Filler, then `text` with its byte `cut` on the first read boundary. `offset`: the filler's lines, so
 * that line N of `text` is line `offset + N` of the log.
 */
function straddling(text: string, cut: number, ending = "\n"): { bytes: Buffer; offset: number } {
  const lines = filler(digestReadBytes - cut, ending);
  return {
    bytes: Buffer.concat([Buffer.from(lines), Buffer.from(text)]),
    offset: lines.split("\n").length - 1,
  };
}

async function digestFile(name: string, bytes: Buffer): Promise<Digest> {
  const path = join(folder, name);
  await writeFile(path, bytes);
  return digestLog(path, { logPath: "gate.log" });
}

/** The same bytes given whole to the parser: the digest a cut must not change. */
function digestWhole(bytes: Buffer): Digest {
  const parser = createDigestParser({ logPath: "gate.log" });
  parser.write(bytes);
  return parser.end();
}

function names(digest: Digest): [string, number][] {
  return digest.failures.map((failure) => [failure.name, failure.logLine]);
}

describe("digest of a log read in pieces", () => {
  it("reads a failure whose line is cut by a read, and a trigger cut in two", async () => {
    const jest = [
      "FAIL src/cart.test.js",
      "  ● cart › sums",
      "",
      "    expect(received).toBe(1)",
      "",
      "      at Object.toBe (src/cart.test.js:4:5)",
      "",
    ].join("\n");
    for (const cut of [1, 2, 3, 10, 22, 24]) {
      const { bytes, offset } = straddling(jest, cut);
      const digest = await digestFile(`jest-${cut}.log`, bytes);
      assert.deepEqual(digest, digestWhole(bytes), `cut at ${cut}`);
      assert.deepEqual(names(digest), [["cart > sums", offset + 2]], `cut at ${cut}`);
      assert.deepEqual(digest.failures[0].anchors, [{ file: "src/cart.test.js", line: 4 }]);
    }
  });

  it("reads Windows line endings cut between the carriage return and the newline", async () => {
    const tap = [
      "not ok 1 - adds",
      "  ---",
      "  error: 'expected 2'",
      "  location: 'test/add.test.js:3:1'",
      "  ...",
      "1..1",
      "",
    ].join("\r\n");
    for (const cut of [15, 16, 17]) {
      const { bytes, offset } = straddling(tap, cut, "\r\n");
      const digest = await digestFile(`crlf-${cut}.log`, bytes);
      assert.deepEqual(digest, digestWhole(bytes), `cut at ${cut}`);
      assert.deepEqual(digest, digestText(bytes.toString("utf8"), { logPath: "gate.log" }));
      assert.deepEqual(names(digest), [["adds", offset + 1]], `cut at ${cut}`);
    }
  });

  it("reads a multibyte character cut by a read (jest's ● bullet)", async () => {
    const text = [
      "FAIL src/ümlaut.test.js",
      "  ● ümlaut › größe",
      "",
      "    expect(received).toBe(1)",
      "",
    ].join("\n");
    const bullet = Buffer.from(text).indexOf("●");
    for (const cut of [bullet + 1, bullet + 2, Buffer.from(text).indexOf("ö") + 1]) {
      const { bytes, offset } = straddling(text, cut);
      const digest = await digestFile(`utf8-${cut}.log`, bytes);
      assert.deepEqual(digest, digestWhole(bytes), `cut at ${cut}`);
      assert.deepEqual(names(digest), [["ümlaut > größe", offset + 2]], `cut at ${cut}`);
    }
  });

  it("counts a 10 MB line as one, spanning several reads, and finds the failures around it", async () => {
    const long = `${"y".repeat(10_000_000)} FAIL inside a line longer than any read`;
    const text = [
      "--- FAIL: TestBefore (0.00s)",
      "    before_test.go:3: before",
      long,
      "--- FAIL: TestAfter (0.00s)",
      "    after_test.go:8: after",
      "FAIL\texample.com/app\t0.1s",
      "",
    ].join("\n");
    const { bytes, offset } = straddling(text, 40);
    const digest = await digestFile("long.log", bytes);
    assert.deepEqual(digest, digestWhole(bytes));
    assert.deepEqual(names(digest), [
      ["TestBefore", offset + 1],
      ["TestAfter", offset + 4],
    ]);
    assert.equal(digest.lines, offset + 6);
    assert.ok(bytes.length > 4 * digestReadBytes);
  });

  it("counts plain go run lines cut by a read, and the failure after them, at every cut", async () => {
    const text = [
      "=== RUN   TestAlpha",
      "=== RUN   TestBeta",
      "=== RUN   TestGamma_with_a_longer_name",
      "--- FAIL: TestBeta (0.00s)",
      "    beta_test.go:7: broke",
      "FAIL\texample.com/greek\t0.1s",
      "",
    ].join("\n");
    const expected = digestText(text);
    for (let cut = 0; cut <= Buffer.byteLength(text); cut += 3) {
      const { bytes, offset } = straddling(text, cut);
      const digest = await digestFile("runs.log", bytes);
      assert.deepEqual(digest, digestWhole(bytes), `cut at ${cut}`);
      assert.deepEqual(names(digest), [["TestBeta", offset + 4]], `cut at ${cut}`);
      assert.equal(digest.testsExecuted, expected.testsExecuted, `cut at ${cut}`);
    }
  });

  it("gives the same digest at every cut of a mixed log near a read boundary", async () => {
    const text = [
      "\x1b[31mFAIL\x1b[39m src/a.test.js",
      "  ● a › one",
      "",
      "=== RUN   TestX",
      "    x_test.go:9: é broke",
      "--- FAIL: TestX (0.00s)",
      "FAIL\texample.com/x\t0.1s",
      "src/m.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.",
      "",
    ].join("\r\n");
    const expected = names(digestText(text));
    for (let cut = 0; cut <= Buffer.byteLength(text); cut += 7) {
      const { bytes, offset } = straddling(text, cut, "\r\n");
      const digest = await digestFile("mixed.log", bytes);
      assert.deepEqual(digest, digestWhole(bytes), `cut at ${cut}`);
      assert.deepEqual(
        names(digest),
        expected.map(([name, line]) => [name, line + offset]),
        `cut at ${cut}`,
      );
    }
  });
});
