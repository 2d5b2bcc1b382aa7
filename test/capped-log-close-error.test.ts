/**
 * A log whose last write error shows only when the file is closed (NFS, a disk quota: the bytes were
 * taken into the cache, the server refuses them at close(2)) is reported as `failure()`, as a log that
 * fails on write is: the gate's log was lost, and its outcome must say so. Simulated here by a close(2)
 * that closes the descriptor, then answers EDQUOT; fs is patched before the log's module loads.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";

const quotaError = () => Object.assign(new Error("EDQUOT: disk quota exceeded, close"), { code: "EDQUOT" });
const realClose = fs.close;
const realCloseSync = fs.closeSync;
let failClose = "";
fs.closeSync = (descriptor: number) => {
  const path = fs.readlinkSync(`/proc/self/fd/${descriptor}`);
  realCloseSync(descriptor);
  if (failClose && path === failClose) throw quotaError();
};
fs.close = ((descriptor: number, callback?: (error: NodeJS.ErrnoException | null) => void) => {
  const path = fs.readlinkSync(`/proc/self/fd/${descriptor}`);
  realClose(descriptor, (error) =>
    callback?.(error ?? (failClose && path === failClose ? quotaError() : null)),
  );
}) as typeof fs.close;
const { openCappedLog } = await import("../src/process/capped-log.ts");

let folder = "";
before(async () => {
  folder = await mkdtemp(join(tmpdir(), "loopwright-capped-log-close-"));
});
after(async () => {
  failClose = "";
  await rm(folder, { recursive: true, force: true });
});

describe("openCappedLog, a write error reported at close", () => {
  for (const [how, bytes] of [
    ["with little left (closed at once)", 1000],
    ["with much left (closed after the writes)", 2 * 1024 * 1024],
  ] as const) {
    it(`is reported ${how}`, async () => {
      const path = join(folder, `${bytes}.log`);
      failClose = path;
      const log = openCappedLog(path, { limitBytes: 16 * 1024 * 1024 });
      log.write("x".repeat(bytes));
      await log.close("# end\n");
      assert.equal(log.failure(), `log not written: EDQUOT (${path})`);
    });
  }
});
