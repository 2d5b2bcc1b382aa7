/**
 * The spec parser's bundle (scripts/bundle-spec-parser.ts), which `importSpecParser` loads from the build:
 * a spec parsed through it gives the answers the modules give (a valid spec, every problem of an
 * invalid one) while loading neither yaml's nor zod's modules; a module changed since it was bundled, a
 * damaged manifest or a bundle that does not load leaves the modules to parse. The bundle's code cache,
 * made after a parse, is kept in Node's compile cache folder by the bundle's text: a damaged one, or one
 * made for another text, never runs.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import {
  appendFileSync,
  copyFileSync,
  cpSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { bundleSpecParser } from "../scripts/bundle-spec-parser.ts";
import { binary, createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const tracer = new URL("./support/module-trace.mjs", import.meta.url).pathname;
const valid = `name: bundled
goal: Be parsed through the bundle.
repo: ./repo
maker: { engine: command, run: "./agent.sh go" }
verifier: { engine: command, run: "cat" }
gates:
  - { id: tests, kind: tests-pass, run: "true", timeout: 2m }
schedule: { every: "1h" }
strategy: { kind: streak, passes: 2 }
`;
/** Checked without zod (src/core/plain-spec.ts): the bundle evaluates zod only for the others. */
const plain = `name: plain
goal: Be parsed without zod.
repo: ./repo
maker: { engine: command, run: "true" }
verifier: { engine: command, run: "cat" }
gates:
  - { id: tests, kind: tests-pass, run: "true", timeout: 2m }
finish: { action: none }
`;
const invalid = `name: Broken Name!
goal: 12
repo: ./repo
extra: 1
maker: { engine: nope, run: 5 }
verifier: 7
gates:
  - { id: fails, kind: wrong, run: ["a"], timeout: abc }
  - 3
budget: { maxIterations: "x", maxCostUsdPerDay: -1 }
scope: { allow: "x" }
strategy: { kind: streak, passes: 0 }
schedule: { every: "fortnight" }
`;

describe("the spec parser's bundle", () => {
  let sandbox: Sandbox;
  /** A copy of the sources with the bundle beside spec-file, run by the copy's own bin. */
  let pkg: string;
  let samples = 0;
  before(async () => {
    sandbox = await createSandbox();
    pkg = join(sandbox.root, "pkg");
    const root = new URL("..", import.meta.url).pathname;
    cpSync(join(root, "src"), join(pkg, "src"), { recursive: true });
    cpSync(join(root, "bin"), join(pkg, "bin"), { recursive: true });
    copyFileSync(join(root, "package.json"), join(pkg, "package.json"));
    symlinkSync(join(root, "node_modules"), join(pkg, "node_modules"));
    await bundleSpecParser({ code: join(pkg, "src") });
  });
  after(() => sandbox.cleanup());

  /**
   * `validate` of `text` as a spec never seen (new path, new home): exit code, output, modules loaded, the
   * bundle's code caches after it. `compileCache`: Node's compile cache folder (NODE_COMPILE_CACHE), a new
   * one by default; `env`: more of the environment.
   */
  const validate = (
    text: string,
    {
      entry = join(pkg, "bin", "loopwright.js"),
      compileCache = join(sandbox.root, `compile-cache-${samples + 1}`),
      env = {},
      timeout,
    }: { entry?: string; compileCache?: string; env?: NodeJS.ProcessEnv; timeout?: number } = {},
  ) => {
    samples++;
    const path = join(sandbox.root, `spec-${samples}.yaml`);
    writeFileSync(path, text);
    const trace = join(sandbox.root, `trace-${samples}.txt`);
    const run = spawnSync(process.execPath, ["--import", tracer, entry, "validate", path], {
      cwd: sandbox.repo,
      env: {
        ...sandbox.env,
        LOOPWRIGHT_HOME: join(sandbox.root, `home-${samples}`),
        LOOPWRIGHT_MODULE_TRACE: trace,
        LOOPWRIGHT_FROM: "",
        NODE_COMPILE_CACHE: compileCache,
        ...env,
      },
      encoding: "utf8",
      timeout,
    });
    const modules = readFileSync(trace, "utf8").split("\n");
    const output = `${run.stdout}${run.stderr}`.replaceAll(path, "SPEC");
    const packages = modules.filter((url) => /\/node_modules\/(zod|yaml|croner)\//.test(url)).length;
    // The bundle is a script run by spec-parser-import, not a module: it parsed when no parser package's
    // module loaded (and then it leaves its code cache, unless Node's compile cache is off).
    return {
      code: run.status,
      output,
      bundled: packages === 0,
      packages,
      codeCaches: codeCaches(compileCache),
    };
  };

  /** The bundle's code cache files under a compile cache folder: path and text of each. */
  const codeCaches = (folder: string) => {
    if (!existsSync(folder)) return [];
    return readdirSync(folder, { recursive: true, encoding: "utf8" })
      .filter((name) => /spec-file\.bundle\.cjs\.[0-9a-f]{8}(\.plain)?\.v8$/.test(name))
      .map((name) => join(folder, name));
  };

  test("parses as the modules do, loading no yaml or zod module", () => {
    for (const text of [valid, invalid]) {
      const bundled = validate(text);
      const modules = validate(text, { entry: binary });
      assert.ok(bundled.bundled, bundled.output);
      // Only a parse that returned keeps a code cache (an invalid spec's throws its problems).
      assert.equal(bundled.codeCaches.length, text === valid ? 1 : 0);
      assert.equal(modules.bundled, false);
      assert.ok(modules.packages > 50, `${modules.packages} package modules`);
      assert.equal(bundled.code, modules.code);
      assert.equal(bundled.output, modules.output);
    }
    assert.match(validate(invalid).output, /maker\.engine/);
  });

  test("a plain spec's code cache holds no zod: smaller, used by plain specs; the first spec zod checks makes one with zod, then used by all", () => {
    const compileCache = join(sandbox.root, "compile-cache-plain");
    const first = validate(plain, { compileCache });
    assert.ok(first.bundled, first.output);
    assert.equal(first.code, 0, first.output);
    assert.equal(first.output, validate(plain, { entry: binary }).output);
    assert.equal(first.codeCaches.length, 1);
    const [plainCache] = first.codeCaches;
    assert.match(plainCache, /\.plain\.v8$/);
    const plainMade = statSync(plainCache).mtimeMs;
    const plainBytes = statSync(plainCache).size;
    // Plain specs, and one zod refuses (its parse throws), leave it as it is.
    for (const text of [plain, invalid]) {
      const next = validate(text, { compileCache });
      assert.ok(next.bundled, next.output);
      assert.equal(next.output, validate(text, { entry: binary }).output);
      assert.deepEqual(next.codeCaches, [plainCache]);
      assert.equal(statSync(plainCache).mtimeMs, plainMade);
    }
    // A spec zod checks and accepts: a cache with zod's path takes the plain one's place, larger.
    const upgraded = validate(valid, { compileCache });
    assert.equal(upgraded.output, validate(valid, { entry: binary }).output);
    assert.equal(upgraded.codeCaches.length, 1, upgraded.codeCaches.join());
    const [cache] = upgraded.codeCaches;
    assert.doesNotMatch(cache, /\.plain\.v8$/);
    assert.ok(statSync(cache).size > plainBytes, `${statSync(cache).size} bytes against ${plainBytes}`);
    const made = statSync(cache).mtimeMs;
    for (const text of [valid, invalid, plain]) {
      const next = validate(text, { compileCache });
      assert.ok(next.bundled, next.output);
      assert.equal(next.output, validate(text, { entry: binary }).output);
      assert.deepEqual(next.codeCaches, [cache]);
      assert.equal(statSync(cache).mtimeMs, made);
    }
  });

  test("a run whose spec the bundle parsed loads zod for its verifier without the other locales", () => {
    const path = join(sandbox.root, "verified.yaml");
    writeFileSync(
      path,
      `name: verified
goal: n.txt holds 1.
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { n.txt: "{{iteration}}\\n" }
gates:
  - { id: one, kind: tests-pass, run: "grep -qx 1 n.txt" }
budget: { maxIterations: 2 }
`,
    );
    const trace = join(sandbox.root, "trace-run.txt");
    const run = spawnSync(
      process.execPath,
      ["--import", tracer, join(pkg, "bin", "loopwright.js"), "run", path],
      {
        cwd: sandbox.repo,
        env: {
          ...sandbox.env,
          LOOPWRIGHT_MODULE_TRACE: trace,
          LOOPWRIGHT_FROM: "",
          NODE_COMPILE_CACHE: join(sandbox.root, "compile-cache-run"),
        },
        encoding: "utf8",
      },
    );
    const output = `${run.stdout}${run.stderr}`;
    assert.equal(run.status, 0, output);
    const modules = readFileSync(trace, "utf8").split("\n");
    assert.equal(codeCaches(join(sandbox.root, "compile-cache-run")).length, 1, "the bundle parsed no spec");
    assert.ok(
      modules.some((url) => url.endsWith("/verify/verdict.ts")),
      "no verifier ruled",
    );
    const locales = modules.filter((url) => url.includes("/zod/v4/locales/"));
    assert.deepEqual(
      locales.map((url) => url.slice(url.lastIndexOf("/") + 1)),
      ["en.js"],
    );
  });

  test("a parser package updated where Node resolves it from the bundle: the updated package parses", () => {
    // Nearer to src/core than the package's node_modules: what Node resolves `zod` to from there.
    const nearer = join(pkg, "src", "node_modules", "zod");
    const real = join(new URL("..", import.meta.url).pathname, "node_modules", "zod");
    cpSync(real, nearer, { recursive: true, dereference: true });
    try {
      // The same version, in another place: still the zod the bundle holds.
      assert.ok(validate(invalid).bundled);
      const manifest = join(nearer, "package.json");
      const bumped = JSON.parse(readFileSync(manifest, "utf8")) as { version: string };
      writeFileSync(manifest, JSON.stringify({ ...bumped, version: `${bumped.version}-patched` }));
      appendFileSync(join(nearer, "index.js"), '\nprocess.stderr.write("[updated zod]\\n");\n');
      const updated = validate(invalid);
      assert.equal(updated.bundled, false, updated.output);
      assert.match(updated.output, /\[updated zod\]/);
    } finally {
      rmSync(join(pkg, "src", "node_modules"), { recursive: true, force: true });
    }
    assert.ok(validate(invalid).bundled);
  });

  test("a package updated while a run waits on its gates: the entry names the package that parsed", async () => {
    const nearer = join(pkg, "src", "node_modules", "zod");
    const real = join(new URL("..", import.meta.url).pathname, "node_modules", "zod");
    cpSync(real, nearer, { recursive: true, dereference: true });
    const home = join(sandbox.root, "home-updated-during-run");
    const gateStarted = join(sandbox.root, "gate-started");
    const path = join(sandbox.root, "updated-during-run.yaml");
    writeFileSync(
      path,
      `name: updated-during-run
goal: Be parsed before an update.
repo: ./repo
maker: { engine: command, run: "true" }
verifier: { engine: command, run: "cat" }
gates:
  - { id: slow, kind: tests-pass, run: "touch ${gateStarted}; sleep 3; false" }
budget: { maxIterations: 1 }
`,
    );
    const env = { ...sandbox.env, LOOPWRIGHT_HOME: home, LOOPWRIGHT_FROM: "" };
    try {
      const child = spawn(process.execPath, [join(pkg, "bin", "loopwright.js"), "run", path], {
        cwd: sandbox.repo,
        env,
        stdio: "ignore",
      });
      const exited = new Promise((resolve) => child.on("close", resolve));
      for (let waited = 0; !existsSync(gateStarted) && waited < 30_000; waited += 50)
        await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(existsSync(gateStarted), "the base gate never started");
      const manifest = join(nearer, "package.json");
      const bumped = JSON.parse(readFileSync(manifest, "utf8")) as { version: string };
      writeFileSync(manifest, JSON.stringify({ ...bumped, version: `${bumped.version}-patched` }));
      await exited;
      // The parse the run made was the bundle's zod: the next command must not take it for the update's.
      const trace = join(sandbox.root, "trace-after-update.txt");
      const after = spawnSync(
        process.execPath,
        ["--import", tracer, join(pkg, "bin", "loopwright.js"), "validate", path],
        {
          cwd: sandbox.repo,
          env: { ...env, LOOPWRIGHT_MODULE_TRACE: trace },
          encoding: "utf8",
        },
      );
      assert.equal(after.status, 0, after.stdout + after.stderr);
      const modules = readFileSync(trace, "utf8").split("\n");
      assert.ok(
        modules.some((url) => url.includes("/node_modules/zod/")),
        "validate answered from a cache entry stamped with the update",
      );
    } finally {
      rmSync(join(pkg, "src", "node_modules"), { recursive: true, force: true });
    }
  });

  test("the code cache made after the first parse is used by the next; a damaged one is made again", () => {
    const compileCache = join(sandbox.root, "compile-cache-kept");
    const first = validate(valid, { compileCache });
    assert.ok(first.bundled, first.output);
    assert.equal(first.codeCaches.length, 1);
    const [cache] = first.codeCaches;
    const made = { bytes: readFileSync(cache), time: statSync(cache).mtimeMs };
    // Used as it is, by a parse of the same spec and of another: V8 took it, nothing was written again.
    for (const text of [valid, invalid]) {
      const next = validate(text, { compileCache });
      assert.ok(next.bundled, next.output);
      assert.equal(next.output, validate(text, { entry: binary }).output);
      assert.deepEqual(next.codeCaches, [cache]);
      assert.equal(statSync(cache).mtimeMs, made.time);
      assert.deepEqual(readFileSync(cache), made.bytes);
    }
    // Damaged in place, its length kept: refused (its checksum), the parse is the same, a good one replaces it.
    const damaged = Buffer.alloc(made.bytes.length, 7);
    writeFileSync(cache, damaged);
    const again = validate(valid, { compileCache });
    assert.ok(again.bundled, again.output);
    assert.equal(again.output, first.output);
    assert.notDeepEqual(readFileSync(cache), damaged);
  });

  test("a spec that looks plain but that zod checks (a pull request's finish) gets a code cache it then uses: not written at every parse", () => {
    // Its keys are a plain spec's, but plain-spec.ts leaves `repository` to zod.
    const pullRequest = plain.replace(
      "finish: { action: none }",
      "finish: { action: pull-request, repository: me/app }",
    );
    const compileCache = join(sandbox.root, "compile-cache-looks-plain");
    const first = validate(pullRequest, { compileCache });
    assert.ok(first.bundled, first.output);
    assert.equal(first.codeCaches.length, 1, first.output);
    const [cache] = first.codeCaches;
    const made = statSync(cache).mtimeMs;
    // The same spec parsed afresh (an edit, another home): the cache made for it is read, not made again.
    for (let parse = 0; parse < 2; parse++) {
      const next = validate(pullRequest, { compileCache });
      assert.ok(next.bundled, next.output);
      assert.equal(next.output.replace(/SPEC/g, ""), first.output.replace(/SPEC/g, ""));
      assert.deepEqual(next.codeCaches, [cache]);
      assert.equal(statSync(cache).mtimeMs, made, "the code cache was written again: none was used");
    }
  });

  test("a code cache damaged past its header, its length kept, never runs: the parse is the same", () => {
    // A disk error, a crash mid-copy or a hand edit: V8 checks no checksum of a code cache (release
    // builds), so its bytes must be checked before V8 deserializes them. Node's own compile cache does.
    const compileCache = join(sandbox.root, "compile-cache-bitflip");
    const first = validate(valid, { compileCache });
    assert.equal(first.codeCaches.length, 1, first.output);
    const [cache] = first.codeCaches;
    const damaged = readFileSync(cache);
    damaged.fill(0xff, 100, 104);
    writeFileSync(cache, damaged);
    for (let time = 0; time < 2; time++) {
      const again = validate(valid, { compileCache });
      assert.equal(again.code, first.code, again.output);
      assert.equal(again.output, first.output);
    }
  });

  test("a FIFO in the code cache's place is not read: the parse is the same, the command ends", () => {
    // readFileSync of a FIFO blocks until a writer comes (of /dev/zero, until memory runs out): the
    // spec itself is read as a regular file alone, size-capped (readRegularFileSync).
    const compileCache = join(sandbox.root, "compile-cache-fifo");
    const first = validate(valid, { compileCache });
    assert.equal(first.codeCaches.length, 1, first.output);
    const [cache] = first.codeCaches;
    rmSync(cache);
    assert.equal(spawnSync("mkfifo", [cache]).status, 0);
    const started = Date.now();
    const again = validate(valid, { compileCache, timeout: 20_000 });
    assert.ok(Date.now() - started < 20_000, "validate hung on the FIFO");
    assert.equal(again.code, first.code, again.output);
    assert.equal(again.output, first.output);
  });

  test("a symlink planted at the code cache's temporary name: its target is not written", (context) => {
    if (process.platform !== "linux") return context.skip("needs /proc/sys/kernel/ns_last_pid");
    const compileCache = join(sandbox.root, "compile-cache-planted");
    const first = validate(valid, { compileCache });
    assert.equal(first.codeCaches.length, 1, first.output);
    const [cache] = first.codeCaches;
    rmSync(cache);
    const victim = join(sandbox.root, "victim.txt");
    writeFileSync(victim, "precious\n");
    // The temporary name is the cache's with the writer's pid: plant one for each of the next pids.
    const last = Number(readFileSync("/proc/sys/kernel/ns_last_pid", "utf8"));
    for (let pid = last + 1; pid < last + 2000; pid++) symlinkSync(victim, `${cache}.${pid}.tmp`);
    const again = validate(valid, { compileCache });
    assert.equal(again.output, first.output);
    assert.equal(readFileSync(victim, "utf8"), "precious\n");
  });

  test("a parse that fails before the schema keeps no code cache; the next that returns does", () => {
    const compileCache = join(sandbox.root, "compile-cache-yaml-error");
    const broken = validate("name: [unclosed\ngoal: x\n", { compileCache });
    assert.equal(broken.code, 2, broken.output);
    assert.ok(broken.bundled, broken.output);
    assert.deepEqual(broken.codeCaches, []);
    // An invalid spec throws its problems: no cache from it either.
    assert.deepEqual(validate(invalid, { compileCache }).codeCaches, []);
    const parsed = validate(valid, { compileCache });
    assert.equal(parsed.codeCaches.length, 1, parsed.output);
  });

  test("a code cache made for another text of the bundle never runs", () => {
    const compileCache = join(sandbox.root, "compile-cache-edited");
    const bundle = join(pkg, "src", "core", "spec-file.bundle.cjs");
    const original = readFileSync(bundle, "utf8");
    assert.equal(validate(valid, { compileCache }).codeCaches.length, 1);
    // The same length (all V8 itself checks of a cache's source) with another message: its code must run.
    const edited = original.replace(
      "use lowercase letters, digits and -",
      "USE lowercase letters, digits and -",
    );
    assert.notEqual(edited, original);
    try {
      writeFileSync(bundle, edited);
      const run = validate(invalid, { compileCache });
      assert.ok(run.bundled, run.output);
      assert.match(run.output, /name: USE lowercase letters, digits and -/);
      // One file per bundle path: made again for the new text, in place of the old one.
      const [cache] = run.codeCaches;
      const old = readFileSync(cache);
      assert.deepEqual(validate(valid, { compileCache }).codeCaches, [cache]);
      assert.notDeepEqual(readFileSync(cache), old);
      assert.match(validate(invalid, { compileCache }).output, /name: USE lowercase letters/);
    } finally {
      writeFileSync(bundle, original);
    }
  });

  test("with Node's compile cache off the bundle parses and keeps no code cache", () => {
    const compileCache = join(sandbox.root, "compile-cache-off");
    const run = validate(valid, { compileCache, env: { NODE_DISABLE_COMPILE_CACHE: "1" } });
    assert.ok(run.bundled, run.output);
    assert.equal(run.output, validate(valid).output);
    assert.deepEqual(run.codeCaches, []);
  });

  test("a same-size edit of a module, its times put back, is seen: the modules parse it", () => {
    const compileCache = join(sandbox.root, "compile-cache-same-size");
    // The second run is vouched for by the stamp the first one left (sizes and times unchanged).
    for (let run = 0; run < 2; run++) {
      const bundled = validate(invalid, { compileCache });
      assert.ok(bundled.bundled, bundled.output);
      assert.match(bundled.output, /name: use lowercase letters, digits and -/);
    }
    const spec = join(pkg, "src", "core", "spec.ts");
    const original = readFileSync(spec);
    const { atime, mtime } = statSync(spec);
    try {
      const edited = original
        .toString("utf8")
        .replace('"use lowercase letters, digits and -"', '"USE lowercase letters, digits and -"');
      assert.equal(Buffer.byteLength(edited), original.length);
      writeFileSync(spec, edited);
      utimesSync(spec, atime, mtime);
      const run = validate(invalid, { compileCache });
      assert.equal(run.bundled, false, run.output);
      assert.match(run.output, /name: USE lowercase letters, digits and -/);
    } finally {
      writeFileSync(spec, original);
    }
    // Put back (a new change time again): the contents match the digest, and the bundle parses.
    assert.ok(validate(invalid, { compileCache }).bundled);
  });

  test("a module changed since it was bundled, a damaged manifest or bundle: the modules parse", () => {
    const expected = validate(invalid, { entry: binary }).output;
    const spec = join(pkg, "src", "core", "spec.ts");
    const manifest = join(pkg, "src", "core", "spec-file.bundle.json");
    const bundle = join(pkg, "src", "core", "spec-file.bundle.cjs");
    const kept = [spec, manifest, bundle].map((path) => [path, readFileSync(path)] as const);
    const unbundled = () => {
      const run = validate(invalid);
      assert.equal(run.bundled, false, run.output);
      assert.ok(run.packages > 50, `${run.packages} package modules`);
      assert.equal(run.output, expected);
    };
    try {
      appendFileSync(spec, "\n// edited after the bundle was made\n");
      unbundled();
      writeFileSync(spec, kept[0][1]);
      writeFileSync(manifest, "{ not json");
      unbundled();
      writeFileSync(manifest, kept[1][1]);
      writeFileSync(bundle, "exports.parseSpecTextForAnyMode = ;\n");
      const broken = validate(invalid);
      assert.equal(broken.output, expected);
      rmSync(bundle);
      unbundled();
    } finally {
      for (const [path, bytes] of kept) writeFileSync(path, bytes);
    }
    assert.ok(validate(invalid).bundled);
  });
});
