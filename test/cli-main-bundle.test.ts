/**
 * The CLI's bundle (scripts/bundle-cli-main.ts), which bin/loopwright.js runs for `run <spec>` from
 * dist/: a real loop runs through it as through the modules (same events, output and exit code) while
 * loading it alone from dist/ and the same packages, its V8 code cache is written after a run and reused,
 * a cache made for another text is not used, and the launcher falls back to cli/main when the bundle is
 * stale (a module it holds rebuilt since), missing or does not load.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { cliMainBundle } from "../scripts/bundle-cli-main.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const tracer = new URL("./support/module-trace.mjs", import.meta.url).pathname;
const root = new URL("..", import.meta.url).pathname;

describe("the CLI bundle that `npm run build` makes, run for `run` from the package without src/", () => {
  let sandbox: Sandbox;
  let pkg: string;
  let bundle: string;
  let loops = 0;
  before(async () => {
    sandbox = await createSandbox({ "math.js": "export const add = (a, b) => a - b;\n" });
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
    bundle = join(pkg, "dist", cliMainBundle);
  });
  after(() => sandbox.cleanup());

  const cacheFolder = () => join(sandbox.root, "cache");
  /** The bundle's code cache files (in Node's compile cache folder, a subfolder per Node and V8). */
  const cacheFiles = () =>
    existsSync(cacheFolder())
      ? readdirSync(cacheFolder(), { recursive: true, encoding: "utf8" })
          .filter((path) => /(^|\/)loopwright-cli-run-[0-9a-f]{8}$/.test(path))
          .map((path) => join(cacheFolder(), path))
      : [];

  /**
   * `loopwright run --json <a new spec>` from the package: exit code, the events' types in order, stderr,
   * and the files of the package it loaded (relative to it) and the packages (node_modules) it loaded.
   */
  const run = (options: { name?: string; gate?: string; maker?: string } = {}) => {
    loops++;
    const name = options.name ?? `bundled-${loops}`;
    const spec = join(sandbox.root, `${name}.yaml`);
    writeFileSync(
      spec,
      `name: ${name}\ngoal: add() adds.\nrepo: ./repo\nmaker: { engine: command, run: ${JSON.stringify(options.maker ?? "echo '// a + b' >> math.js")} }\nverifier: { engine: command, run: "cat" }\ngates:\n  - { id: tests, kind: tests-pass, run: "${options.gate ?? "false"}" }\nbudget: { maxIterations: 1 }\n`,
    );
    const trace = join(sandbox.root, `trace-${loops}.txt`);
    const answer = spawnSync(
      process.execPath,
      ["--import", tracer, join(pkg, "bin", "loopwright.js"), "run", "--json", spec],
      {
        cwd: sandbox.repo,
        env: {
          ...sandbox.env,
          LOOPWRIGHT_FROM: "",
          LOOPWRIGHT_MODULE_TRACE: trace,
          XDG_CACHE_HOME: cacheFolder(),
        },
        encoding: "utf8",
      },
    );
    const modules = existsSync(trace) ? readFileSync(trace, "utf8").split("\n").filter(Boolean) : [];
    const paths = modules.filter((url) => url.startsWith("file:")).map((url) => new URL(url).pathname);
    return {
      code: answer.status,
      stderr: answer.stderr,
      events: answer.stdout
        .split("\n")
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { type: string }).type),
      files: paths.filter((path) => path.startsWith(`${pkg}/`)).map((path) => path.slice(pkg.length + 1)),
      packages: [
        ...new Set(
          paths.map((path) => /\/node_modules\/((@[^/]+\/)?[^/]+)\//.exec(path)?.[1]).filter(Boolean),
        ),
      ].sort(),
    };
  };
  /** Runs `body` with the bundle moved away (the launcher then runs cli/main), and puts it back. */
  const withoutBundle = <T>(body: () => T): T => {
    renameSync(bundle, `${bundle}.away`);
    try {
      return body();
    } finally {
      renameSync(`${bundle}.away`, bundle);
    }
  };

  test("a loop runs through the bundle as through the modules, loading the bundle alone from dist/", () => {
    const bundled = run();
    const modules = withoutBundle(() => run());
    assert.equal(bundled.code, 3, bundled.stderr);
    assert.equal(bundled.stderr, modules.stderr);
    assert.deepEqual(bundled.events, modules.events);
    assert.ok(
      bundled.events.includes("maker_started") && bundled.events.includes("gate_ended"),
      bundled.events.join(),
    );
    // The bundle is read and compiled as a script (node:vm), not loaded as a module: only the launcher
    // and the code cache's reader are (the bundle checks its modules itself).
    assert.deepEqual(bundled.files, ["bin/loopwright.js", "dist/files/code-cache-file.js"]);
    assert.ok(modules.files.includes("dist/cli/main.js"));
    // The same packages as the modules, the schema library and the forges' not among them: loaded only
    // where a module that imports them runs.
    assert.deepEqual(bundled.packages, modules.packages);
    assert.ok(
      !bundled.packages.includes("zod") && !bundled.packages.includes("@octokit/rest"),
      bundled.packages.join(),
    );
  });

  test("a loop whose gates pass reaches its verifier through the bundle (its packages required on the way) as through the modules", () => {
    // `cat` answers no verdict: three invalid verdicts break the circuit (exit 5), both ways.
    const bundled = run({ gate: "true" });
    const modules = withoutBundle(() => run({ gate: "true" }));
    assert.equal(bundled.code, 5, bundled.stderr);
    assert.equal(modules.code, 5, modules.stderr);
    assert.equal(bundled.stderr, modules.stderr);
    assert.deepEqual(bundled.events, modules.events);
    assert.ok(bundled.events.includes("verifier_started"), bundled.events.join());
    assert.deepEqual(bundled.packages, modules.packages);
  });

  test("a run writes the bundle's code cache, the next one uses it, and one for another text is not used", () => {
    rmSync(cacheFolder(), { recursive: true, force: true });
    // A refused run (the loop's name taken) compiled little of a run: it keeps no cache; nor does help.
    run({ name: "taken" });
    rmSync(cacheFolder(), { recursive: true, force: true });
    assert.equal(run({ name: "taken" }).code, 2);
    assert.deepEqual(cacheFiles(), []);
    const help = spawnSync(process.execPath, [join(pkg, "bin", "loopwright.js"), "run", "--help"], {
      env: { ...sandbox.env, LOOPWRIGHT_FROM: "", XDG_CACHE_HOME: cacheFolder() },
      encoding: "utf8",
    });
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /Usage: loopwright run/);
    assert.deepEqual(cacheFiles(), []);
    assert.equal(run().code, 3);
    const [file] = cacheFiles();
    assert.ok(file, "no code cache was written");
    const written = statSync(file).mtimeMs;
    assert.equal(run().code, 3);
    assert.equal(statSync(file).mtimeMs, written, "a cache V8 took was written again");
    // Another text of the bundle (a rebuild): the cache is made anew for it.
    const text = readFileSync(bundle, "utf8");
    try {
      writeFileSync(bundle, `${text}\n// rebuilt\n`);
      assert.equal(run().code, 3);
      assert.ok(readFileSync(file).includes("// rebuilt"), "the cache was not made for the new text");
    } finally {
      writeFileSync(bundle, text);
    }
    // Damaged data (one copy of V8's data changed): not used, made anew, and the run goes on.
    const damaged = readFileSync(file);
    damaged[damaged.length - 10] ^= 0xff;
    writeFileSync(file, damaged);
    assert.equal(run().code, 3);
    assert.notDeepEqual(readFileSync(file), damaged);
  });

  test("a run writes the code cache once its maker's turn is under way, not at its end; the next run uses it", () => {
    rmSync(cacheFolder(), { recursive: true, force: true });
    // The maker waits (up to 20 s) for the cache to appear, and says what it saw: written while it works.
    const seen = join(sandbox.root, "cache-seen.txt");
    const maker = `for i in $(seq 200); do find ${cacheFolder()} -name 'loopwright-cli-run-*' | grep -q . && break; sleep 0.1; done; find ${cacheFolder()} -name 'loopwright-cli-run-*' > ${seen}`;
    assert.equal(run({ maker }).code, 3);
    const [file] = cacheFiles();
    assert.ok(file, "no code cache was written");
    assert.deepEqual(
      readFileSync(seen, "utf8").trim().split("\n"),
      [file],
      "the maker's turn ran without it",
    );
    const written = statSync(file).mtimeMs;
    const next = run({ maker });
    assert.equal(next.code, 3, next.stderr);
    assert.equal(statSync(file).mtimeMs, written, "a cache V8 took was written again");
  });

  test("the bundle's check keeps a stamp of its modules' sizes and times: later runs read no module's contents again", () => {
    assert.equal(run().code, 3);
    const stamps = () =>
      readdirSync(cacheFolder(), { recursive: true, encoding: "utf8" })
        .filter((path) => /(^|\/)loopwright-bundle-[0-9a-f]{8}$/.test(path))
        .map((path) => statSync(join(cacheFolder(), path)));
    // One for the CLI bundle, one for the spec parser's (a new spec is parsed at each run).
    const kept = stamps().map((stamp) => [stamp.ino, stamp.mtimeMs]);
    assert.equal(kept.length, 2, "a stamp was not kept");
    assert.equal(run().code, 3);
    assert.deepEqual(
      stamps().map((again) => [again.ino, again.mtimeMs]),
      kept,
      "the contents were compared again",
    );
  });

  test("a module edited to the same size since the bundle was made runs as edited; put back, the bundle runs again", () => {
    // A hand patch of the package (or a rebuild by tsc of a same-length change): every size as bundled.
    const module = join(pkg, "dist", "loop", "create-loop.js");
    const written = readFileSync(module, "utf8");
    assert.ok(written.includes("already exists in"), "create-loop.js words a taken name as expected");
    assert.equal(run({ name: "patched" }).code, 3);
    try {
      writeFileSync(module, written.replaceAll("already exists in", "ALREADY EXISTS IN"));
      const patched = run({ name: "patched" });
      assert.equal(patched.code, 2, patched.stderr);
      assert.match(patched.stderr, /a loop named patched ALREADY EXISTS IN /, "ran the bundle's old copy");
    } finally {
      writeFileSync(module, written);
    }
    // The same text again (a newer time): the bundle holds it, and runs.
    const restored = run();
    assert.equal(restored.code, 3, restored.stderr);
    assert.ok(!restored.files.includes("dist/cli/main.js"), restored.files.join(" "));
  });

  test("a stale bundle (a module rebuilt since), a missing one or one that does not load leaves the run to cli/main", () => {
    const module = join(pkg, "dist", "loop", "runner.js");
    const written = readFileSync(module);
    try {
      // Rebuilt (its size changed): the bundle's copy of it is stale.
      writeFileSync(module, Buffer.concat([written, Buffer.from("\n// rebuilt\n")]));
      const stale = run();
      assert.equal(stale.code, 3, stale.stderr);
      assert.ok(stale.files.includes("dist/cli/main.js") && stale.files.includes("dist/loop/runner.js"));
    } finally {
      writeFileSync(module, written);
    }
    assert.ok(!run().files.includes("dist/cli/main.js"));
    const missing = withoutBundle(() => run());
    assert.equal(missing.code, 3, missing.stderr);
    assert.ok(missing.files.includes("dist/cli/main.js"));
    const text = readFileSync(bundle, "utf8");
    try {
      writeFileSync(bundle, "(function () { throw new Error('broken bundle'); })");
      const broken = run();
      assert.equal(broken.code, 3, broken.stderr);
      assert.ok(broken.files.includes("dist/cli/main.js"));
      assert.ok(!broken.stderr.includes("broken bundle"), broken.stderr);
      writeFileSync(bundle, "(function (require, module) {");
      const unparsable = run();
      assert.equal(unparsable.code, 3, unparsable.stderr);
      assert.ok(unparsable.files.includes("dist/cli/main.js"));
    } finally {
      writeFileSync(bundle, text);
    }
  });
});
