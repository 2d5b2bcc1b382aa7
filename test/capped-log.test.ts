/**
 * A command's log file as `openCappedLog` writes it: every write in order (many queued while one is on
 * the disk), the footer last, the kept end after the cut, in append mode after what was there; a full
 * disk (/dev/full) reported, never thrown, whether the last bytes go out synchronously (little left,
 * nothing in flight) or after the writes in flight.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { openCappedLog } from "../src/process/capped-log.ts";

let folder = "";
before(async () => {
  folder = await mkdtemp(join(tmpdir(), "loopwright-capped-log-"));
});
after(async () => {
  await rm(folder, { recursive: true, force: true });
});

const lines = (count: number, from = 0) =>
  Array.from({ length: count }, (_, index) => `line ${from + index}\n`);

describe("openCappedLog", () => {
  it("writes every piece in order, queued behind the write in flight, the footer last", async () => {
    const path = join(folder, "order.log");
    const log = openCappedLog(path, { limitBytes: 16 * 1024 * 1024 });
    const pieces = lines(5000);
    for (const piece of pieces) log.write(piece);
    await log.close("# end\n");
    assert.equal(log.failure(), undefined);
    assert.equal(await readFile(path, "utf8"), `${pieces.join("")}# end\n`);
  });

  it("writes the footer right after a close that finds nothing in flight", async () => {
    const path = join(folder, "quiet.log");
    const log = openCappedLog(path, { limitBytes: 1024 * 1024 });
    log.write("$ false\n");
    await new Promise((resolve) => setTimeout(resolve, 50));
    await log.close("# exit 1\n");
    await log.close("# never\n");
    log.write("after close\n");
    assert.equal(await readFile(path, "utf8"), "$ false\n# exit 1\n");
  });

  it("keeps the head and the end past the cap, and says what was cut between them", async () => {
    const path = join(folder, "cut.log");
    const log = openCappedLog(path, { limitBytes: 4096 });
    const pieces = lines(2000);
    for (const piece of pieces) log.write(piece);
    await log.close("# end\n");
    const text = await readFile(path, "utf8");
    assert.ok(text.startsWith("line 0\nline 1\n"));
    assert.match(text, /\[loopwright\] \d+ bytes \(0\.0 MiB\) of output cut here/);
    assert.ok(text.endsWith("line 1998\nline 1999\n# end\n"), text.slice(-60));
    assert.ok(Buffer.byteLength(text) <= 4096 + 200, `${Buffer.byteLength(text)} bytes`);
  });

  it("appends after what the file held", async () => {
    const path = join(folder, "append.log");
    await writeFile(path, "first turn\n");
    const log = openCappedLog(path, { append: true, limitBytes: 1024 * 1024 });
    log.write("second turn\n");
    await log.close();
    assert.equal(await readFile(path, "utf8"), "first turn\nsecond turn\n");
  });

  for (const [how, pieces] of [
    ["when the last bytes go out synchronously", 0],
    ["when the last bytes follow writes in flight", 3000],
  ] as const) {
    it(`reports a full disk ${how}, without throwing`, async () => {
      if (!existsSync("/dev/full")) return;
      const log = openCappedLog("/dev/full", { append: true, limitBytes: 16 * 1024 * 1024 });
      for (const piece of lines(pieces)) log.write(piece);
      await log.close("# end\n");
      assert.match(log.failure() ?? "", /ENOSPC/);
    });
  }

  it("never writes through a symbolic link", async () => {
    const target = join(folder, "target.txt");
    await writeFile(target, "untouched\n");
    const link = join(folder, "link.log");
    const { symlink } = await import("node:fs/promises");
    await symlink(target, link);
    const log = openCappedLog(link, { limitBytes: 1024 });
    log.write("planted\n");
    await log.close("# end\n");
    assert.match(log.failure() ?? "", /ELOOP/);
    assert.equal(await readFile(target, "utf8"), "untouched\n");
  });
});
