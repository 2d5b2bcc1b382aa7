/**
 * Review 3 of h/reads: the read-only commands' bundle is used "only while current (newer than every
 * module it holds)". Modification times do not say that in the ways a built package reaches users:
 * - npm (pacote's extraction, `noMtime: true`) writes every file of an installed package with the time it
 *   extracts it, in the tarball's order, so modules the bundle holds come out newer than it: an installed
 *   package loads the bundle, finds it stale and loads the modules as well, on every `ls`, `show`, `validate`;
 * - a git checkout (a clone of a repository that keeps dist/) writes files in path order: `core/` before
 *   `files/`, `git/`, `loop/`, `store/`, the same;
 * - the other way round, a module changed with a time not after the bundle's (a clock set back between the
 *   build and a rebuild by tsc, a file system with 1 s or 2 s times) leaves the bundle's old copy running.
 * So the launcher compares contents with the bundle's digest where times changed (files/bundle-freshness.ts):
 * the CLI's bundle, for `run`, is held to the same.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { basename, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { readCommandsBundle } from "../scripts/bundle-read-commands.ts";
import { binary, createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const tracer = new URL("./support/module-trace.mjs", import.meta.url).pathname;
const root = new URL("..", import.meta.url).pathname;

describe("the read-only commands' bundle in a package as it reaches users (review 3)", () => {
  let sandbox: Sandbox;
  let pkg: string;
  let spec: string;
  before(async () => {
    sandbox = await createSandbox();
    delete sandbox.env.NODE_TEST_CONTEXT;
    pkg = join(sandbox.root, "pkg");
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
    // Packages copied, installed or cloned into the sandbox find yaml, zod and the rest here.
    symlinkSync(join(root, "node_modules"), join(sandbox.root, "node_modules"));
    const engines = `maker: { engine: command, run: "true" }\nverifier: { engine: command, run: "cat" }\n`;
    spec = await sandbox.spec(
      `name: shown\ngoal: Be shown.\nrepo: ./repo\n${engines}gates:\n  - { id: red, kind: tests-pass, run: "false" }\nbudget: { maxIterations: 1 }\n`,
      join(sandbox.root, "shown.yaml"),
    );
    assert.equal((await sandbox.cli(["run", spec])).code, 3);
  });
  after(() => sandbox.cleanup());

  /** `loopwright <args>` through the package at `at` (or the checkout's sources): answer and files loaded. */
  const cli = (at: string | undefined, args: string[], home = sandbox.home) => {
    const trace = join(sandbox.root, `trace-${Math.random().toString(36).slice(2)}.txt`);
    const run = spawnSync(
      process.execPath,
      ["--import", tracer, at ? join(at, "bin", "loopwright.js") : binary, ...args],
      {
        cwd: sandbox.repo,
        env: {
          ...sandbox.env,
          LOOPWRIGHT_HOME: home,
          LOOPWRIGHT_FROM: "",
          LOOPWRIGHT_MODULE_TRACE: trace,
          XDG_CACHE_HOME: join(sandbox.root, "cache"),
        },
        encoding: "utf8",
      },
    );
    const modules = existsSync(trace) ? readFileSync(trace, "utf8").split("\n").filter(Boolean) : [];
    return {
      answer: { code: run.status, stdout: run.stdout, stderr: run.stderr },
      files: modules
        .filter((url) => at !== undefined && url.startsWith(`file://${at}/`))
        .map((url) => new URL(url).pathname.slice(at?.length ?? 0).replace(/^\//, "")),
    };
  };

  /** `run <a new spec>` through the package at `at`: exit code, stderr, and whether cli/main was loaded. */
  let runs = 0;
  const run = async (at: string, name = `copied-${++runs}`) => {
    const engines = `maker: { engine: command, run: "true" }\nverifier: { engine: command, run: "cat" }\n`;
    const loop = await sandbox.spec(
      `name: ${name}\ngoal: Run.\nrepo: ./repo\n${engines}gates:\n  - { id: red, kind: tests-pass, run: "false" }\nbudget: { maxIterations: 1 }\n`,
      join(sandbox.root, `${name}.yaml`),
    );
    // Loops of their own home: the other tests list the sandbox's.
    const answer = cli(at, ["run", loop], join(sandbox.root, "home-of-runs"));
    return {
      code: answer.answer.code,
      stderr: answer.answer.stderr,
      fromModules: answer.files.includes("dist/cli/main.js"),
    };
  };

  /** `run` through `at` from the CLI's bundle (no cli/main), and a same-size edit of a module it holds seen. */
  const assertRunServedByBundle = async (at: string) => {
    for (let time = 0; time < 2; time++) {
      const ran = await run(at, `${basename(at)}-${time}`);
      assert.equal(ran.code, 3, ran.stderr);
      assert.equal(ran.fromModules, false, "ran cli/main beside the bundle");
    }
    const module = join(at, "dist", "loop", "create-loop.js");
    const text = readFileSync(module, "utf8");
    writeFileSync(module, text.replaceAll("already exists in", "ALREADY EXISTS IN"));
    const patched = await run(at, `${basename(at)}-0`);
    assert.equal(patched.code, 2, patched.stderr);
    assert.match(patched.stderr, /ALREADY EXISTS IN/, "ran the bundle's old copy");
    writeFileSync(module, text);
  };

  /** ls, show and validate through `at`: the sources' answers, from the bundle (no cli/main, no command module). */
  const assertServedByBundle = (at: string) => {
    for (const args of [["ls"], ["ls", "--json"], ["show", "shown"], ["validate", spec]]) {
      const installed = cli(at, args);
      assert.deepEqual(installed.answer, cli(undefined, args).answer, args.join(" "));
      assert.ok(installed.files.includes(`dist/${readCommandsBundle}`), installed.files.join(" "));
      assert.deepEqual(
        installed.files.filter(
          (file) => file === "dist/cli/main.js" || file.startsWith("dist/cli/commands/"),
        ),
        [],
        `${args.join(" ")} ran from the modules beside the bundle it loaded`,
      );
    }
  };

  test("an npm install of the packed package: ls, show, validate and run from the bundles", async () => {
    // The package as `npm pack` makes it (bin, dist, package.json), its dependencies left out of the
    // manifest so that the install needs no registry (they resolve from the sandbox's node_modules).
    const stage = join(sandbox.root, "stage");
    mkdirSync(stage);
    for (const entry of ["bin", "dist"]) cpSync(join(pkg, entry), join(stage, entry), { recursive: true });
    const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
    delete manifest.dependencies;
    delete manifest.devDependencies;
    delete manifest.scripts;
    writeFileSync(join(stage, "package.json"), JSON.stringify(manifest, null, 2));
    const pack = spawnSync("npm", ["pack", "--ignore-scripts", "--pack-destination", sandbox.root], {
      cwd: stage,
      encoding: "utf8",
    });
    assert.equal(pack.status, 0, pack.stderr);
    const tarball = join(sandbox.root, pack.stdout.trim().split("\n").at(-1) ?? "");
    const project = join(sandbox.root, "inst");
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), '{"name":"inst","version":"1.0.0","private":true}\n');
    const install = spawnSync(
      "npm",
      ["install", "--offline", "--ignore-scripts", "--no-audit", "--no-fund", "--no-package-lock", tarball],
      { cwd: project, encoding: "utf8" },
    );
    assert.equal(install.status, 0, install.stderr);
    assertServedByBundle(join(project, "node_modules", "loopwright"));
    await assertRunServedByBundle(join(project, "node_modules", "loopwright"));
  });

  test("a copy by `cp -r` (new times, in its own order): ls, show, validate and run from the bundles", async () => {
    const copy = join(sandbox.root, "copied");
    const copied = spawnSync("cp", ["-r", pkg, copy], { encoding: "utf8" });
    assert.equal(copied.status, 0, copied.stderr);
    assertServedByBundle(copy);
    await assertRunServedByBundle(copy);
  });

  test("a clone of a repository that keeps the built package: ls, show and validate run from the bundle", () => {
    const kept = join(sandbox.root, "kept");
    mkdirSync(kept);
    for (const entry of ["bin", "dist", "package.json"])
      cpSync(join(pkg, entry), join(kept, entry), { recursive: true });
    const git = (cwd: string, ...args: string[]) => {
      const run = spawnSync(
        "git",
        ["-c", "user.name=Review", "-c", "user.email=review@example.com", ...args],
        {
          cwd,
          env: sandbox.env,
          encoding: "utf8",
        },
      );
      assert.equal(run.status, 0, run.stderr);
    };
    git(kept, "init", "-q", "-b", "main");
    git(kept, "add", "-A");
    git(kept, "commit", "-q", "-m", "built");
    git(sandbox.root, "clone", "-q", kept, join(sandbox.root, "clone"));
    assertServedByBundle(join(sandbox.root, "clone"));
  });

  test("a module rebuilt with a time not after the bundle's (clock set back, 1 s file times) runs as rebuilt", () => {
    const copy = join(sandbox.root, "skewed");
    cpSync(pkg, copy, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
    const bundle = join(copy, "dist", readCommandsBundle);
    const command = join(copy, "dist", "cli", "commands", "list-command.js");
    assert.match(cli(copy, ["ls"]).answer.stdout, /^shown .* \d+ it {2}\$0\.00/);
    // A rebuild by tsc of a change to `ls`'s wording, on a clock one second behind the build's.
    const text = readFileSync(command, "utf8");
    assert.ok(text.includes(" it  $"), "list-command.js words the iterations as expected");
    writeFileSync(command, text.replace(" it  $", " iterations  $"));
    const earlier = new Date(statSync(bundle).mtimeMs - 1000);
    utimesSync(command, earlier, earlier);
    const listed = cli(copy, ["ls"]);
    assert.match(
      listed.answer.stdout,
      /^shown .* \d+ iterations {2}\$0\.00/,
      "ran the bundle's old copy of ls",
    );
  });
});
