/**
 * The sandbox probe's success is kept in the home (src/sandbox/sandbox-probe-cache.ts) and used only while
 * everything that decides it is unchanged: another bwrap (replaced, re-permissioned, earlier on PATH), a
 * refusal, or an entry written under another key all mean the probe runs again; a refusal is never kept.
 */
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { probeKey, probeSucceededBefore, recordProbeSuccess } from "../src/sandbox/sandbox-probe-cache.ts";
import { createSandbox } from "./support/loop-sandbox.ts";

const spec = `name: probed\ngoal: Be checked.\nrepo: ./repo\nmaker: { engine: command, run: "true" }\nverifier: { engine: command, run: "cat" }\ngates:\n  - { id: tests, kind: tests-pass, run: "true" }\n`;

/** A bwrap in `folder` that records each start in `starts` and exits `code` (refusing with a message). */
function fakeBwrap(folder: string, starts: string, code: number, marker = ""): void {
  mkdirSync(folder, { recursive: true });
  const refusal = code === 0 ? "" : "echo 'bwrap: probe refused' >&2\n";
  writeFileSync(
    join(folder, "bwrap"),
    `#!/bin/sh\n# ${marker}\necho started >> '${starts}'\n${refusal}exit ${code}\n`,
  );
  chmodSync(join(folder, "bwrap"), 0o755);
}

const startsIn = (file: string) => {
  try {
    return readFileSync(file, "utf8").split("\n").filter(Boolean).length;
  } catch {
    return 0;
  }
};

test("a probe's success is used again only with the same bwrap; a refusal or another bwrap probes again", {
  skip: process.platform !== "linux",
}, async () => {
  const sandbox = await createSandbox();
  try {
    const tools = join(sandbox.root, "tools");
    const starts = join(sandbox.root, "bwrap-starts");
    const path = await sandbox.spec(spec);
    const validate = async (env: NodeJS.ProcessEnv, available: boolean) => {
      const result = await sandbox.cli(["validate", path], { env });
      assert.equal(result.code, 0, result.stderr);
      const refused = /warning: no operating-system sandbox/.test(result.stdout);
      assert.equal(refused, !available, result.stdout);
    };
    const env = { PATH: `${tools}:${process.env.PATH}` };
    fakeBwrap(tools, starts, 0);
    await validate(env, true);
    await validate(env, true);
    assert.equal(startsIn(starts), 1, "the second validate used the first one's success");
    // Replaced by one that refuses (another file: size, times): probed, refused, and not kept.
    fakeBwrap(tools, starts, 1, "now refusing");
    await validate(env, false);
    await validate(env, false);
    assert.equal(startsIn(starts), 3, "each refusal probed");
    // Its permission changed back and forth (the change time moves): probed again.
    fakeBwrap(tools, starts, 0, "accepting again");
    await validate(env, true);
    chmodSync(join(tools, "bwrap"), 0o700);
    chmodSync(join(tools, "bwrap"), 0o755);
    await validate(env, true);
    assert.equal(startsIn(starts), 5);
    // Another bwrap earlier on PATH: probed (it refuses).
    const earlier = join(sandbox.root, "earlier");
    fakeBwrap(earlier, starts, 1, "earlier");
    await validate({ PATH: `${earlier}:${env.PATH}` }, false);
    assert.equal(startsIn(starts), 6);
    // Switched off: no probe, no entry used.
    const off = await sandbox.cli(["validate", path], { env: { ...env, LOOPWRIGHT_SANDBOX: "off" } });
    assert.match(off.stdout, /switched off by LOOPWRIGHT_SANDBOX=off/);
    assert.equal(startsIn(starts), 6);
  } finally {
    await sandbox.cleanup();
  }
});

test("an entry is used only under the exact key it was written with", {
  skip: process.platform !== "linux",
}, async () => {
  const sandbox = await createSandbox();
  try {
    const home = join(sandbox.root, "probe-home");
    const tools = join(sandbox.root, "tools");
    fakeBwrap(tools, join(sandbox.root, "starts"), 0);
    const env = { PATH: `${tools}:/usr/bin:/bin` };
    const key = probeKey(["--ro-bind", "/", "/", "--", "true"], env);
    assert.ok(key, "a key where bwrap is on PATH");
    assert.equal(probeSucceededBefore(key, home), false, "nothing kept yet");
    recordProbeSuccess(key, home);
    assert.equal(probeSucceededBefore(key, home), true);
    // Other arguments, another bwrap, a PATH with a relative folder: other keys (or none).
    assert.notEqual(probeKey(["--", "true"], env), key);
    assert.equal(probeKey(["--", "true"], { PATH: `bin:${env.PATH}` }), undefined);
    assert.equal(probeKey(["--", "true"], { PATH: "/nonexistent" }), undefined, "no bwrap: no key");
    // The dynamic loader's variables decide which libraries bwrap loads: other keys.
    assert.notEqual(
      probeKey(["--ro-bind", "/", "/", "--", "true"], { ...env, LD_LIBRARY_PATH: "/elsewhere" }),
      key,
    );
    assert.notEqual(probeKey(["--ro-bind", "/", "/", "--", "true"], { ...env, LD_PRELOAD: "/x.so" }), key);
    // An entry edited by hand to another key, or to say anything but a success, is no entry.
    const entry = join(home, "cache", "sandbox-probe.json");
    writeFileSync(entry, JSON.stringify({ key: `${key}x`, available: true }));
    assert.equal(probeSucceededBefore(key, home), false);
    writeFileSync(entry, JSON.stringify({ key, available: "yes" }));
    assert.equal(probeSucceededBefore(key, home), false);
    writeFileSync(entry, "{not json");
    assert.equal(probeSucceededBefore(key, home), false);
  } finally {
    await sandbox.cleanup();
  }
});

test("a stale kept success fails turns loudly until doctor's refusal drops it; then commands probe again", {
  skip: process.platform !== "linux",
}, async () => {
  const sandbox = await createSandbox();
  try {
    const tools = join(sandbox.root, "tools");
    const starts = join(sandbox.root, "bwrap-starts");
    const refuse = join(sandbox.root, "refuse");
    mkdirSync(tools, { recursive: true });
    writeFileSync(
      join(tools, "bwrap"),
      `#!/bin/sh\necho started >> '${starts}'\nif [ -e '${refuse}' ]; then echo 'bwrap: error while loading shared libraries' >&2; exit 127; fi\nexit 0\n`,
    );
    chmodSync(join(tools, "bwrap"), 0o755);
    const env = { PATH: `${tools}:${process.env.PATH}` };
    const path = await sandbox.spec(spec);
    assert.equal((await sandbox.cli(["validate", path], { env })).code, 0);
    const entry = join(sandbox.home, "cache", "sandbox-probe.json");
    assert.ok(existsSync(entry), "the success is kept");
    // What the key cannot see changes (a library bwrap loads): the kept success is now wrong.
    writeFileSync(refuse, "");
    const run = await sandbox.cli(["run", path], { env });
    assert.match(`${run.stdout}${run.stderr}`, /error while loading shared libraries/);
    assert.ok(existsSync(entry), "a failing sandboxed command (any maker may fail) leaves it");
    const probes = startsIn(starts);
    const doctor = await sandbox.cli(["doctor"], { env });
    assert.equal(startsIn(starts), probes + 1, "doctor probed: the kept success is not what it reports");
    assert.match(doctor.stdout, /✗ sandbox: .*error while loading shared libraries/);
    assert.equal(existsSync(entry), false, "doctor's refusal dropped the kept success");
    const before = startsIn(starts);
    const again = await sandbox.cli(["validate", path], { env });
    assert.equal(startsIn(starts), before + 1, "validate probed");
    assert.match(again.stdout, /warning: no operating-system sandbox/);
  } finally {
    await sandbox.cleanup();
  }
});

test("a probe that does not answer in time is named so, not 'not installed', and is not kept", {
  skip: process.platform !== "linux",
}, async () => {
  const sandbox = await createSandbox();
  try {
    const tools = join(sandbox.root, "tools");
    mkdirSync(tools, { recursive: true });
    writeFileSync(join(tools, "bwrap"), "#!/bin/sh\nexec sleep 30\n");
    chmodSync(join(tools, "bwrap"), 0o755);
    const path = await sandbox.spec(spec);
    const result = await sandbox.cli(["validate", path], { env: { PATH: `${tools}:${process.env.PATH}` } });
    assert.match(result.stdout, /did not answer its probe within 10 s/);
    assert.doesNotMatch(result.stdout, /not installed/);
    assert.equal(existsSync(join(sandbox.home, "cache", "sandbox-probe.json")), false);
  } finally {
    await sandbox.cleanup();
  }
});

test("a FIFO or a link planted in the cache does not hang a command nor get written through", {
  skip: process.platform !== "linux",
}, async () => {
  const { spawnSync } = await import("node:child_process");
  const { lstatSync, mkdtempSync, rmSync, symlinkSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const home = mkdtempSync(join(tmpdir(), "loopwright-probe-cache-"));
  try {
    mkdirSync(join(home, "cache"), { recursive: true });
    const entry = join(home, "cache", "sandbox-probe.json");
    assert.equal(spawnSync("mkfifo", [entry]).status, 0);
    // Asked in a child: a blocking read would hang it, not the test runner.
    const module = new URL("../src/sandbox/sandbox-probe-cache.ts", import.meta.url).href;
    const asked = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const { probeSucceededBefore } = await import(${JSON.stringify(module)}); process.stdout.write(String(probeSucceededBefore("k", ${JSON.stringify(home)})));`,
      ],
      { encoding: "utf8", timeout: 20_000 },
    );
    assert.equal(asked.signal, null, "the read of a FIFO entry hung");
    assert.equal(asked.stdout, "false");
    rmSync(entry);
    // A link where the entry is: not followed.
    const elsewhere = join(home, "elsewhere.json");
    writeFileSync(elsewhere, JSON.stringify({ key: "k", available: true }));
    symlinkSync(elsewhere, entry);
    assert.equal(probeSucceededBefore("k", home), false);
    rmSync(entry);
    // A link at the temporary file's name this process would have used: its target is left alone.
    const victim = join(home, "victim");
    writeFileSync(victim, "keep\n");
    symlinkSync(victim, `${entry}.${process.pid}.tmp`);
    recordProbeSuccess("k", home);
    assert.equal(readFileSync(victim, "utf8"), "keep\n");
    assert.equal(lstatSync(entry).isFile(), true, "the entry is a file of its own, not the link");
    assert.equal(probeSucceededBefore("k", home), true);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
