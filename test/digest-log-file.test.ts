/**
 * What `digestLog` opens: a log under one piece is read synchronously, a larger one in pieces, and
 * either way only a regular file, never through a link, and never waiting on a FIFO (a gate that
 * replaced its log by one must not hang the controller). Both sizes give the digest of the same text.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { digestLog, digestReadBytes } from "../src/gates/digest/digest-log.ts";
import { digestText } from "../src/gates/digest/digest-parser.ts";

let folder = "";
before(async () => {
  folder = await mkdtemp(join(tmpdir(), "loopwright-digest-log-file-"));
});
after(async () => {
  await rm(folder, { recursive: true, force: true });
});

const failure = "--- FAIL: TestCart (0.00s)\n    cart_test.go:9: short\nFAIL\texample.com/app\t0.1s\n";
const noise = (bytes: number) => "[info] served\n".repeat(Math.ceil(bytes / 14));
const sizes = { small: noise(100), large: noise(digestReadBytes + 4096) };

describe("digestLog's file", () => {
  for (const [size, filler] of Object.entries(sizes)) {
    it(`digests a ${size} log as its text`, async () => {
      const path = join(folder, `${size}.log`);
      const text = `${filler}${failure}`;
      await writeFile(path, text);
      const digest = await digestLog(path);
      assert.deepEqual(digest, digestText(text, { logPath: path }));
      assert.deepEqual(
        digest.failures.map((found) => found.name),
        ["TestCart"],
      );
    });

    it(`reads nothing of a ${size} log through a symbolic link`, async () => {
      const target = join(folder, `${size}-target.log`);
      await writeFile(target, `${filler}${failure}`);
      const link = join(folder, `${size}-link.log`);
      await symlink(target, link);
      const digest = await digestLog(link);
      assert.match(digest.readError ?? "", /ELOOP/);
      assert.equal(digest.totalFailures, 0);
    });
  }

  it("answers at once for a FIFO in the log's place, with nothing read", async () => {
    const fifo = join(folder, "fifo.log");
    assert.equal(spawnSync("mkfifo", [fifo]).status, 0);
    const digest = await digestLog(fifo);
    assert.match(digest.readError ?? "", /not a regular file/);
    assert.equal(digest.totalFailures, 0);
  });

  it("says why for a missing log", async () => {
    const digest = await digestLog(join(folder, "missing.log"));
    assert.match(digest.readError ?? "", /ENOENT/);
  });
});
