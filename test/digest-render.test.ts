import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { digestLog } from "../src/gates/digest/digest-log.ts";
import { digestText } from "../src/gates/digest/digest-parser.ts";
import type { Digest } from "../src/gates/digest/digest-types.ts";
import { renderDigest } from "../src/gates/digest/render-digest.ts";

const failureCount = 5000;

/** A jest log with `count` failures; returns it and the line each failure's header is on. */
function jestLog(count: number): { text: string; headerLines: number[] } {
  const lines = ["PASS src/small.test.js", "FAIL src/big.test.js"];
  const headerLines: number[] = [];
  for (let index = 1; index <= count; index++) {
    headerLines.push(lines.length + 1);
    lines.push(
      `  ● suite ${index % 7} › computes case ${index}`,
      "",
      "    expect(received).toBe(expected) // Object.is equality",
      "",
      `    Expected: ${index}`,
      `    Received: ${index + 1}`,
      "",
      `      at Object.toBe (src/big.test.js:${index + 10}:21)`,
      "",
    );
  }
  lines.push(`Tests:       ${count} failed, 12 passed, ${count + 12} total`);
  return { text: `${lines.join("\n")}\n`, headerLines };
}

describe("renderDigest", () => {
  let folder = "";
  let logPath = "";
  let digest: Digest;
  let headerLines: number[] = [];

  before(async () => {
    folder = await mkdtemp(join(tmpdir(), "loopwright-digest-render-"));
    logPath = join(folder, "gate.log");
    const log = jestLog(failureCount);
    headerLines = log.headerLines;
    await writeFile(logPath, log.text);
    digest = await digestLog(logPath);
  });

  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it("keeps every failure of a 5,000-failure log, with its anchor and log line", () => {
    assert.equal(digest.totalFailures, failureCount);
    assert.equal(digest.failures.length, failureCount);
    assert.equal(digest.testsExecuted, failureCount + 12);
    assert.deepEqual(digest.failures[4321].anchors, [{ file: "src/big.test.js", line: 4332 }]);
    assert.equal(digest.failures[4321].logLine, headerLines[4321]);
    assert.equal(digest.failures[4321].name, `suite ${4322 % 7} > computes case 4322`);
  });

  it("renders 5,000 failures in at most 64 KiB: names and anchors first, and says how many it left out", () => {
    const text = renderDigest(digest);
    assert.ok(Buffer.byteLength(text) <= 64 * 1024, `${Buffer.byteLength(text)} bytes`);
    const listed = text.split("\n").filter((line) => /^\d+\. /.test(line));
    assert.ok(listed.length >= 100, `only ${listed.length} names listed`);
    assert.equal(listed[0], `1. suite 1 > computes case 1 — src/big.test.js:11 (gate.log:${headerLines[0]})`);
    assert.match(text, new RegExp(`\\(${failureCount - listed.length} more failures not listed here`));
    assert.match(text, /^5000 failures \(jest\); 5012 tests executed\. Full log: .*gate\.log/m);
    assert.ok(text.includes(logPath), "names the full log");
    assert.ok(text.indexOf("### Failures") < text.indexOf("### Details"));
    assert.ok(
      text.includes(`#### 1. suite 1 > computes case 1 (gate.log:${headerLines[0]})\n    expect(received)`),
      "details of the first failure follow the names",
    );
    assert.match(text, /\(Details of \d+ listed failures left out for size/);
  });

  it("never exceeds the limit it is given", () => {
    for (const limit of [300, 1000, 4096, 20_000, 200_000]) {
      const text = renderDigest(digest, limit);
      assert.ok(Buffer.byteLength(text) <= limit, `${Buffer.byteLength(text)} bytes for a limit of ${limit}`);
    }
    const everything = renderDigest(digest, 10 * 1024 * 1024);
    assert.equal(everything.split("\n").filter((line) => /^\d+\. /.test(line)).length, failureCount);
    assert.doesNotMatch(everything, /more failures not listed/);
  });

  it("lists every failure of a small log with its details", () => {
    const small = digestText(jestLog(3).text, { logPath: "/logs/tests.log" });
    const text = renderDigest(small);
    assert.match(text, /^1\. suite 1 > computes case 1 — src\/big\.test\.js:11 \(tests\.log:3\)$/m);
    assert.match(text, /^3\. suite 3 > computes case 3 — src\/big\.test\.js:13 \(tests\.log:21\)$/m);
    assert.match(
      text,
      /#### 3\. suite 3 > computes case 3 \(tests\.log:21\)\n(?: {4}.*\n)*Stack:\n {2}at Object\.toBe/,
    );
    assert.doesNotMatch(text, /left out|not listed/);
  });

  it("says when it recognized no failure, and when the log could not be read", async () => {
    const passing = renderDigest(digestText("ok 1 - adds\n# pass 1\n# fail 0\n"));
    assert.match(passing, /No failure recognized in the log \(node-test\); 1 tests executed\./);
    const missing = await digestLog(join(folder, "missing.log"));
    assert.match(missing.readError ?? "", /ENOENT/);
    assert.match(renderDigest(missing), /The log could not be read: ENOENT/);
  });
});
