/**
 * Gate logs through the application layer: ranged reads that join exactly (multi-byte characters never
 * cut), a read past the end refused on `offset`, logs beyond the 16 MiB cap, and a log a maker replaced
 * by a symbolic link refused instead of followed.
 */
import assert from "node:assert/strict";
import { appendFile, readFile, rename, rm, symlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { listGateLogs, readGateLog } from "../src/app/gate-logs.ts";
import { gateLogListSchema, gateLogRangeSchema } from "../src/app/schemas/file-schemas.ts";
import { createRedactor } from "../src/core/redact.ts";
import { FieldError, UsageError } from "../src/errors.ts";
import { type AppSandbox, createAppSandbox, exhaustedSpec } from "./support/app-loops.ts";

let sandbox: AppSandbox;
/** About 600 KB of lines with two- and three-byte characters, then a red exit. */
const noisyGate = `for i in $(seq 1 20000); do echo "line $i: héllo wörld ✓ €"; done; exit 1`;

before(async () => {
  sandbox = await createAppSandbox();
  await sandbox.runLoop("noisy", exhaustedSpec("noisy", noisyGate), 3);
});

after(async () => {
  await sandbox.cleanup();
});

test("the logs of an iteration, and of the base commit (iteration 0)", async () => {
  const latest = gateLogListSchema.parse(await listGateLogs(sandbox.context, "noisy"));
  assert.equal(latest.iteration, 1);
  assert.deepEqual(
    latest.logs.map((log) => [log.gate, log.phase, log.passed, log.problem]),
    [
      ["done", "grade", false, null],
      ["done", "recheck", false, null],
    ],
  );
  assert.ok((latest.logs[0].sizeBytes ?? 0) > 500_000);
  const base = await listGateLogs(sandbox.context, "noisy", { iteration: 0 });
  assert.deepEqual(
    base.logs.map((log) => log.phase),
    ["baseline"],
  );
  await assert.rejects(listGateLogs(sandbox.context, "noisy", { gate: "lint" }), (error: unknown) => {
    assert.ok(error instanceof FieldError);
    assert.equal(error.field, "gate");
    return true;
  });
  await assert.rejects(listGateLogs(sandbox.context, "noisy", { iteration: 4 }), (error: unknown) => {
    assert.ok(error instanceof FieldError);
    assert.equal(error.field, "iteration");
    return true;
  });
});

test("ranged reads of odd lengths join into the exact log, never cutting a character", async () => {
  const [log] = (await listGateLogs(sandbox.context, "noisy")).logs;
  const whole = await readFile(log.logPath);
  const parts: string[] = [];
  let offset = 0;
  for (let reads = 0; reads < 1000; reads++) {
    const part = gateLogRangeSchema.parse(
      await readGateLog(sandbox.context, "noisy", { gate: "done", phase: "grade", offset, length: 65_537 }),
    );
    assert.equal(part.totalBytes, whole.length);
    assert.ok(!part.text.includes("\uFFFD"), `the read at ${offset} cut a character`);
    parts.push(part.text);
    offset = part.nextOffset;
    if (part.complete) break;
  }
  assert.equal(offset, whole.length);
  assert.equal(parts.join(""), whole.toString("utf8"));
  const end = await readGateLog(sandbox.context, "noisy", { gate: "done", offset: whole.length });
  assert.equal(end.text, "");
  assert.equal(end.complete, true);
});

test("bad ranges are refused on the field: past the end, negative, zero or over 16 MiB long", async () => {
  const [log] = (await listGateLogs(sandbox.context, "noisy")).logs;
  const size = log.sizeBytes ?? 0;
  for (const [request, field] of [
    [{ offset: size + 1 }, "offset"],
    [{ offset: -1 }, "offset"],
    [{ length: 0 }, "length"],
    [{ length: 16 * 1024 * 1024 + 1 }, "length"],
    [{ phase: "confirm" }, "phase"],
  ] as const) {
    await assert.rejects(
      readGateLog(sandbox.context, "noisy", { gate: "done", phase: "grade", ...request }),
      (error: unknown) => {
        assert.ok(error instanceof FieldError, String(error));
        assert.equal(error.field, field);
        return true;
      },
    );
  }
  await assert.rejects(readGateLog(sandbox.context, "noisy", { offset: 0 } as never), (error: unknown) => {
    assert.ok(error instanceof FieldError);
    assert.equal(error.field, "gate");
    return true;
  });
});

test("with a redactor, the log is redacted whole before a range is cut: pages never split a secret", async () => {
  const secretValue = "sk-test-0123456789abcdef";
  const redact = createRedactor({ SERVICE_API_KEY: secretValue });
  const recheck = (await listGateLogs(sandbox.context, "noisy")).logs.find((log) => log.phase === "recheck");
  assert.ok(recheck);
  await appendFile(recheck.logPath, `the key is ${secretValue} (héllo)\n`);
  const redacted = redact(await readFile(recheck.logPath, "utf8"));
  const pieces = Array.from({ length: secretValue.length - 5 }, (_, at) => secretValue.slice(at, at + 6));
  const marker = Buffer.byteLength(redacted) - Buffer.byteLength("[redacted:SERVICE_API_KEY] (héllo)\n");
  for (const length of [5, 7, 13]) {
    const parts: string[] = [];
    for (let offset = marker - 40; ; ) {
      const part = await readGateLog(
        sandbox.context,
        "noisy",
        { gate: "done", phase: "recheck", offset, length },
        { redact },
      );
      assert.equal(part.totalBytes, Buffer.byteLength(redacted), "sizes are the redacted log's");
      for (const piece of pieces) assert.ok(!part.text.includes(piece), `a page shows '${piece}'`);
      parts.push(part.text);
      offset = part.nextOffset;
      if (part.complete) break;
    }
    assert.equal(
      parts.join(""),
      Buffer.from(redacted)
        .subarray(marker - 40)
        .toString(),
    );
  }
  // Without a redactor (the CLI's own logs), the bytes on disk.
  const size = (await readFile(recheck.logPath)).length;
  const raw = await readGateLog(sandbox.context, "noisy", {
    gate: "done",
    phase: "recheck",
    offset: size - 40,
  });
  assert.ok(raw.text.endsWith(`${secretValue} (héllo)\n`), raw.text);
});

test("a log beyond the 16 MiB cap is read in ranges to its very end", async () => {
  const logs = (await listGateLogs(sandbox.context, "noisy", { iteration: 0 })).logs;
  const path = logs[0].logPath;
  const block = Buffer.alloc(1024 * 1024, "x");
  for (let index = 0; index < 20; index++) await appendFile(path, block);
  await appendFile(path, "the very end ✓\n");
  const size = (await readFile(path)).length;
  assert.ok(size > 20 * 1024 * 1024);
  const tail = await readGateLog(sandbox.context, "noisy", { iteration: 0, gate: "done", offset: size - 18 });
  assert.equal(tail.text, "xthe very end ✓\n");
  assert.equal(tail.totalBytes, size);
  assert.equal(tail.complete, true);
  const big = await readGateLog(sandbox.context, "noisy", {
    iteration: 0,
    gate: "done",
    offset: 0,
    length: 16 * 1024 * 1024,
  });
  assert.equal(big.length, 16 * 1024 * 1024);
  assert.equal(big.complete, false);
});

test("a log replaced by a symbolic link is refused, never followed; a missing log is said missing", async () => {
  const [grade, recheck] = (await listGateLogs(sandbox.context, "noisy")).logs;
  await rm(grade.logPath);
  await symlink("/etc/passwd", grade.logPath);
  await rm(recheck.logPath);
  const listed = await listGateLogs(sandbox.context, "noisy");
  assert.match(listed.logs[0].problem ?? "", /symbolic link/);
  assert.equal(listed.logs[0].missing, false);
  assert.equal(listed.logs[1].missing, true);
  await assert.rejects(
    readGateLog(sandbox.context, "noisy", { gate: "done", phase: "grade" }),
    (error: unknown) => {
      assert.ok(error instanceof UsageError);
      assert.match(error.message, /is a symbolic link, not a file/);
      return true;
    },
  );
  const cli = await sandbox.cli(["logs", "noisy"]);
  assert.equal(cli.code, 0, cli.stderr);
  assert.doesNotMatch(cli.stdout, /root:/);
  assert.match(cli.stdout, /\(log not readable: .*: is a symbolic link, not a file\)/);
  assert.match(cli.stdout, /\(log missing: .*\)/);
});

test("a log folder swapped for a link to a folder outside the loop's is refused too", async () => {
  const [log] = (await listGateLogs(sandbox.context, "noisy", { iteration: 0 })).logs;
  const folder = dirname(log.logPath);
  const outside = join(sandbox.root, "outside");
  await rename(folder, outside);
  await symlink(outside, folder);
  const listed = await listGateLogs(sandbox.context, "noisy", { iteration: 0 });
  assert.equal(listed.logs[0].problem, "not inside the loop's folder");
  await assert.rejects(
    readGateLog(sandbox.context, "noisy", { iteration: 0, gate: "done" }),
    /not inside the loop's folder/,
  );
});
