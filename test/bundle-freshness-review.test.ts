/**
 * Review of the bundles' freshness check (src/files/bundle-freshness.ts), through the launcher of a
 * package built in a temp folder:
 * - a same-size edit whose modification time is put back (`touch -r`, or a file copied in with its time
 *   kept: `cp -p`, `rsync -a`, `tar x`, a package manager writing a reproducible build's clamped times)
 *   keeps the stamp's sizes and times, so the stamp vouches for contents that are no longer there and
 *   the bundle's old copy runs. Git's index, which the check follows, keeps the inode change time too
 *   (which no user can set back) for that reason;
 * - a module the bundle holds that can be stat'ed but not read (another user's file mode, an I/O error,
 *   one removed between the stat and the read during an upgrade) makes `modulesDigest` throw out of
 *   `bundleIsCurrent`: `ls` dies with Node's stack trace, exit 1, where without the bundle it answers.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

const root = new URL("..", import.meta.url).pathname;

describe("the bundles' freshness check, hostile review", () => {
  let folder: string;
  let pkg: string;
  before(() => {
    folder = mkdtempSync(join(tmpdir(), "bundle-freshness-review-"));
    // Readable by another user (the unreadable module's test runs `ls` as nobody when run as root).
    chmodSync(folder, 0o755);
    pkg = join(folder, "pkg");
    mkdirSync(pkg);
    for (const entry of ["bin", "src", "scripts", "package.json", "tsconfig.json", "tsconfig.build.json"])
      cpSync(join(root, entry), join(pkg, entry), { recursive: true });
    symlinkSync(join(root, "node_modules"), join(pkg, "node_modules"));
    const build = spawnSync("npm", ["run", "build"], {
      cwd: pkg,
      env: { ...process.env, PATH: `${join(root, "node_modules", ".bin")}:${process.env.PATH}` },
      encoding: "utf8",
    });
    assert.equal(build.status, 0, build.stderr);
    rmSync(join(pkg, "src"), { recursive: true });
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  /** A copy of the built package of its own (its own stamp), with its home and cache folders. */
  const copy = (name: string) => {
    const at = join(folder, name);
    cpSync(pkg, at, { recursive: true, verbatimSymlinks: true });
    for (const sub of ["home", "cache"]) {
      mkdirSync(join(at, sub));
      chmodSync(join(at, sub), 0o777);
    }
    return at;
  };

  /** `loopwright <args>` through the package at `at`, as `prefix` (a command that runs it as another user). */
  const cli = (at: string, args: string[], prefix: string[] = []) => {
    const command = [...prefix, process.execPath, join(at, "bin", "loopwright.js"), ...args];
    const run = spawnSync(command[0] ?? "", command.slice(1), {
      cwd: folder,
      env: {
        PATH: process.env.PATH,
        HOME: join(at, "home"),
        LOOPWRIGHT_HOME: join(at, "home"),
        XDG_CACHE_HOME: join(at, "cache"),
      },
      encoding: "utf8",
    });
    return { code: run.status, stdout: run.stdout, stderr: run.stderr };
  };

  test("a same-size edit of a module with its modification time put back (touch -r) runs as edited", () => {
    const at = copy("touched");
    // An installed package, not one copied this instant (the check keeps no stamp for times that recent).
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
    for (let time = 0; time < 2; time++) assert.deepEqual(cli(at, ["ls"]).stdout, "no loops\n");
    const module = join(at, "dist", "cli", "commands", "list-command.js");
    // touch -r keeps the nanoseconds (utimesSync's Date would round them, a time of its own).
    const times = join(at, "times");
    writeFileSync(times, "");
    const touch = (from: string, to: string) =>
      assert.equal(spawnSync("touch", ["-r", from, to]).status, 0, `touch -r ${from} ${to}`);
    touch(module, times);
    const text = readFileSync(module, "utf8");
    assert.ok(text.includes('"no loops'), "list-command.js words an empty list as expected");
    writeFileSync(module, text.replace('"no loops', '"NO LOOPS'));
    touch(times, module);
    assert.equal(statSync(module).mtimeMs, statSync(times).mtimeMs);
    assert.equal(cli(at, ["ls"]).stdout, "NO LOOPS\n", "ran the bundle's old copy of ls");
  });

  test("`run` through the CLI's bundle: the same edit with its time put back runs as edited", () => {
    const at = copy("touched-run");
    const repo = join(at, "repo");
    const git = (...args: string[]) =>
      assert.equal(spawnSync("git", ["-C", repo, ...args]).status, 0, `git ${args.join(" ")}`);
    mkdirSync(repo);
    git("init", "-q", "-b", "main");
    git(
      "-c",
      "user.name=Review",
      "-c",
      "user.email=review@example.com",
      "commit",
      "-q",
      "--allow-empty",
      "-m",
      "init",
    );
    const spec = join(at, "touched.yaml");
    writeFileSync(
      spec,
      'name: touched\ngoal: Run.\nrepo: ./repo\nmaker: { engine: command, run: "true" }\nverifier: { engine: command, run: "cat" }\ngates:\n  - { id: red, kind: tests-pass, run: "false" }\nbudget: { maxIterations: 1 }\n',
    );
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
    assert.equal(cli(at, ["run", spec]).code, 3);
    assert.match(cli(at, ["run", spec]).stderr, /already exists in/);
    const module = join(at, "dist", "loop", "create-loop.js");
    const times = join(at, "times");
    writeFileSync(times, "");
    assert.equal(spawnSync("touch", ["-r", module, times]).status, 0);
    writeFileSync(module, readFileSync(module, "utf8").replaceAll("already exists in", "ALREADY EXISTS IN"));
    assert.equal(spawnSync("touch", ["-r", times, module]).status, 0);
    assert.match(cli(at, ["run", spec]).stderr, /ALREADY EXISTS IN/, "ran the bundle's old copy");
  });

  test("a module the bundle holds that cannot be read, which ls does not need: ls answers, nothing thrown", (context) => {
    const at = copy("unreadable");
    // forge-doctor is in the read commands' bundle (validate's preflight), never loaded by `ls`.
    chmodSync(join(at, "dist", "forge", "forge-doctor.js"), 0o000);
    const root = process.getuid?.() === 0;
    if (root && spawnSync("setpriv", ["--version"]).status !== 0)
      return context.skip("needs setpriv as root");
    const asNobody = root ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : [];
    const listed = cli(at, ["ls"], asNobody);
    assert.deepEqual(listed, { code: 0, stdout: "no loops\n", stderr: "" });
  });
});
