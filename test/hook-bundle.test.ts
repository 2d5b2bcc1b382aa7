/**
 * The hook path's bundle (scripts/bundle-hook-path.ts), which bin/loopwright.js runs from dist/: the
 * hooks answer through it as through the modules it replaces (the spec's parser and the gate runner
 * reached unbundled), the launcher falls back to hook-main when it is missing or does not load, and
 * the build refuses a bundle that would hold a second copy of a module or move `import.meta`.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
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
import { transform } from "esbuild";
import { bundleHookEntry, bundleHookPath } from "../scripts/bundle-hook-path.ts";
import { binary, createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const spec = `name: bundled
goal: add() adds.
maker: { engine: command, run: "true" }
gates:
  - { id: tests, kind: tests-pass, run: "grep -q 'a + b' math.js" }
`;
const source = new URL("../src", import.meta.url).pathname;
/** What the stand-in for dist/hooks/hook-main.js answers: the fallback ran. */
const standIn = { systemMessage: "hook-main ran" };

describe("the hook bundle, run by bin/loopwright.js from a package without src/", () => {
  let sandbox: Sandbox;
  let pkg: string;
  before(async () => {
    sandbox = await createSandbox({ "math.js": "export const add = (a, b) => a - b;\n", "loop.yaml": spec });
    delete sandbox.env.NODE_TEST_CONTEXT;
    pkg = join(sandbox.root, "pkg");
    mkdirSync(join(pkg, "bin"), { recursive: true });
    mkdirSync(join(pkg, "dist", "hooks"), { recursive: true });
    copyFileSync(binary, join(pkg, "bin", "loopwright.js"));
    copyFileSync(new URL("../package.json", import.meta.url), join(pkg, "package.json"));
    writeFileSync(
      join(pkg, "dist", "hooks", "hook-main.js"),
      `export async function runHook() { process.stdout.write(${JSON.stringify(`${JSON.stringify(standIn)}\n`)}); return 0; }\n`,
    );
    // Bundled from src/: its unbundled modules are then src/'s, which Node runs as they are.
    await bundleHookPath({ code: source, into: join(pkg, "dist") });
    await bundleHookEntry({ code: source, into: join(pkg, "dist") });
    // The launcher keeps the bundle's code cache through dist/files/code-cache-file.js, as tsc builds it.
    mkdirSync(join(pkg, "dist", "files"));
    const codeCacheFile = await transform(readFileSync(join(source, "files", "code-cache-file.ts"), "utf8"), {
      loader: "ts",
      format: "esm",
    });
    writeFileSync(join(pkg, "dist", "files", "code-cache-file.js"), codeCacheFile.code);
  });
  after(() => sandbox.cleanup());

  const hook = (event: string, entry = join(pkg, "bin", "loopwright.js"), env: NodeJS.ProcessEnv = {}) => {
    const run = spawnSync(process.execPath, [entry, "hook", event], {
      cwd: sandbox.repo,
      env: { ...sandbox.env, LOOPWRIGHT_FROM: "", XDG_CACHE_HOME: join(sandbox.root, "cache"), ...env },
      input: JSON.stringify({ cwd: sandbox.repo, session_id: "s1" }),
      encoding: "utf8",
    });
    assert.equal(run.status, 0, run.stderr);
    stderr = run.stderr;
    return JSON.parse(run.stdout) as Record<string, unknown>;
  };
  /** What the last `hook` wrote on stderr. */
  let stderr = "";

  test("a stop runs its gate (spec parsed, gate run: both unbundled) and answers as the sources do", async () => {
    await sandbox.write({ "math.js": "export const add = (a, b) => a * b;\n" });
    const blocked = hook("stop");
    assert.equal(blocked.decision, "block", JSON.stringify(blocked));
    assert.match(String(blocked.reason), /tests/);
    // The bundle's import()s of the unbundled modules (the spec's parser, the gate runner) say nothing on
    // stderr: no warning of Node's about how the bundle loads them reaches the user's transcript.
    assert.equal(stderr, "");
    await sandbox.write({ "math.js": "export const add = (a, b) => a + b;\n" });
    assert.deepEqual(hook("stop"), {});
    // The checkout's own run (src/) gives the same answers at the same state.
    assert.deepEqual(hook("stop", binary), {});
    // A prompt counts a turn: the two answers differ in their turn counts alone.
    const uncounted = (output: Record<string, unknown>) =>
      JSON.stringify(output).replace(/\d+ turns?/g, "N turns");
    const fromBundle = hook("prompt");
    assert.match(JSON.stringify(fromBundle), /1 file changed since the work opened/);
    assert.equal(uncounted(fromBundle), uncounted(hook("prompt", binary)));
  });

  test("an event's first run keeps the bundle's code cache; later runs use it only for the same bundle text", () => {
    const bundle = join(pkg, "dist", "hooks", "hook-main.bundle.js");
    const folders = readdirSync(join(sandbox.root, "cache", "loopwright", "compile-cache"));
    assert.equal(folders.length, 1, "Node's compile cache folder, one per Node version and flags");
    const folder = join(sandbox.root, "cache", "loopwright", "compile-cache", folders[0]);
    const cacheFiles = () => readdirSync(folder).filter((name) => name.startsWith("loopwright-hook-check-"));
    const said = (output: Record<string, unknown>) => String(output.systemMessage);
    copyFileSync(bundle, `${bundle}.kept`);
    try {
      assert.match(said(hook("check")), /^loopwright hook mode runs on Node\.js/);
      assert.equal(cacheFiles().length, 1);
      const file = join(folder, cacheFiles()[0]);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      const made = readFileSync(file);
      // Used as it is: not written again.
      assert.match(said(hook("check")), /^loopwright hook mode runs on Node\.js/);
      assert.deepEqual(readFileSync(file), made);
      // The bundle edited, same length: its text runs, not the code compiled from the old one.
      writeFileSync(bundle, readFileSync(bundle, "utf8").replace("hook mode runs on", "hook mode RUNS on"));
      assert.match(said(hook("check")), /^loopwright hook mode RUNS on Node\.js/);
      const remade = readFileSync(file);
      assert.notDeepEqual(remade, made, "made again for the edited bundle");
      assert.match(said(hook("check")), /^loopwright hook mode RUNS on Node\.js/);
      assert.deepEqual(readFileSync(file), remade);
      // Its data replaced by junk: refused, the hook answers, the file is made again.
      const junk = Buffer.concat([remade.subarray(0, 100), Buffer.alloc(remade.length - 100, 0x5a)]);
      writeFileSync(file, junk);
      assert.match(said(hook("check")), /^loopwright hook mode RUNS on Node\.js/);
      assert.notDeepEqual(readFileSync(file), junk, "made again");
      // An unknown event keeps no cache; with Node's compile cache off, no event does.
      hook("no-such-event");
      assert.deepEqual(
        readdirSync(folder).filter((name) => name.startsWith("loopwright-hook-no-such-event-")),
        [],
      );
      rmSync(file);
      assert.match(said(hook("check", undefined, { NODE_DISABLE_COMPILE_CACHE: "1" })), /RUNS on/);
      assert.deepEqual(cacheFiles(), []);
    } finally {
      copyFileSync(`${bundle}.kept`, bundle);
      rmSync(`${bundle}.kept`);
    }
  });

  test("a code cache damaged past V8's header, or a FIFO in its place: the hook answers, at once", () => {
    // A prompt's answer (its turn counts and advice change from one prompt to the next).
    const answered = (output: Record<string, unknown>) => {
      const context = (output.hookSpecificOutput as { additionalContext?: unknown } | undefined)
        ?.additionalContext;
      assert.match(String(context), /^loopwright: repository repo; 1 file changed since the work opened/);
    };
    answered(hook("prompt"));
    const folders = readdirSync(join(sandbox.root, "cache", "loopwright", "compile-cache"));
    const folder = join(sandbox.root, "cache", "loopwright", "compile-cache", folders[0]);
    const cacheFile = () => {
      const names = readdirSync(folder).filter((name) => /^loopwright-hook-prompt-[0-9a-f]+$/.test(name));
      assert.equal(names.length, 1, readdirSync(folder).join(" "));
      return join(folder, names[0]);
    };
    hook("prompt");
    const file = cacheFile();
    // Bytes flipped inside V8's data, the length kept: V8 checks no checksum of it (release builds),
    // so the file's own must refuse it before V8 deserializes it (it crashed the hook: SIGTRAP, SIGSEGV).
    const made = readFileSync(file);
    for (const offset of [0.2, 0.5, 0.8].map((at) => Math.floor(made.length * at))) {
      const damaged = Buffer.from(made);
      damaged.fill(0xff, offset, offset + 4);
      writeFileSync(file, damaged);
      for (let time = 0; time < 2; time++) answered(hook("prompt"));
    }
    // A FIFO in its place is not read (a read would wait for a writer forever).
    rmSync(file);
    assert.equal(spawnSync("mkfifo", [file]).status, 0);
    const started = Date.now();
    const run = spawnSync(process.execPath, [join(pkg, "bin", "loopwright.js"), "hook", "prompt"], {
      cwd: sandbox.repo,
      env: { ...sandbox.env, LOOPWRIGHT_FROM: "", XDG_CACHE_HOME: join(sandbox.root, "cache") },
      input: JSON.stringify({ cwd: sandbox.repo, session_id: "s1" }),
      encoding: "utf8",
      timeout: 20_000,
    });
    assert.ok(Date.now() - started < 20_000, "the hook hung on the FIFO");
    assert.equal(run.status, 0, run.stderr);
    rmSync(file, { force: true });
    // Without the module that keeps code caches, the bundle (not the stand-in hook-main) still answers.
    const module = join(pkg, "dist", "files", "code-cache-file.js");
    renameSync(module, `${module}.kept`);
    try {
      answered(hook("prompt"));
      assert.ok(!existsSync(file));
    } finally {
      renameSync(`${module}.kept`, module);
    }
  });

  test("without the bundle, or with one that does not load, hook-main answers", () => {
    const bundle = join(pkg, "dist", "hooks", "hook-main.bundle.js");
    copyFileSync(bundle, `${bundle}.kept`);
    try {
      writeFileSync(bundle, "export const runHook = ;\n");
      assert.deepEqual(hook("stop"), standIn);
      rmSync(bundle);
      assert.deepEqual(hook("stop"), standIn);
    } finally {
      copyFileSync(`${bundle}.kept`, bundle);
    }
    assert.notDeepEqual(hook("stop"), standIn);
  });

  test("the launcher's CommonJS entry answers as bin/loopwright.js does, and hands it anything else", () => {
    const entry = join(pkg, "dist", "hooks", "hook-entry.cjs");
    assert.deepEqual(hook("stop", entry), hook("stop"));
    assert.equal(stderr, "");
    const uncounted = (output: Record<string, unknown>) =>
      JSON.stringify(output).replace(/\d+ turns?/g, "N turns");
    assert.equal(uncounted(hook("prompt", entry)), uncounted(hook("prompt")));
    assert.equal(stderr, "");
    // What bin/loopwright.js decides, it still decides: an unknown LOOPWRIGHT_FROM, hook-main without the bundle.
    assert.match(
      String(hook("stop", entry, { LOOPWRIGHT_FROM: "bogus" }).systemMessage),
      /LOOPWRIGHT_FROM is "bogus"/,
    );
    const bundle = join(pkg, "dist", "hooks", "hook-main.bundle.js");
    renameSync(bundle, `${bundle}.kept`);
    try {
      assert.deepEqual(hook("stop", entry), standIn);
    } finally {
      renameSync(`${bundle}.kept`, bundle);
    }
  });
});

describe("the bundle's build refuses what would change behaviour", () => {
  let sandbox: Sandbox;
  before(async () => {
    sandbox = await createSandbox();
  });
  after(() => sandbox.cleanup());

  /** A code folder named src (so .ts) with hook-main, the two unbundled modules and `files`. */
  const codeFolder = (name: string, files: Record<string, string>) => {
    const code = join(sandbox.root, name, "src");
    const all: Record<string, string> = {
      "hooks/hook-gates.ts": "export const runHookGates = () => [];\n",
      "core/spec-file.ts": "export const parseSpecTextForAnyMode = () => ({});\n",
      ...files,
    };
    for (const [path, text] of Object.entries(all)) {
      mkdirSync(join(code, path, ".."), { recursive: true });
      writeFileSync(join(code, path), text);
    }
    return code;
  };

  test("a module both in the bundle and reached by an unbundled one (two copies of its state)", async () => {
    const code = codeFolder("twice", {
      "state.ts": "export const counts = new Map();\n",
      "core/spec-file.ts": 'import { counts } from "../state.ts";\nexport const parse = () => counts;\n',
      "hooks/hook-main.ts":
        'import { counts } from "../state.ts";\nexport async function runHook() { counts.clear(); return (await import("../core/spec-file.ts")).parse(); }\n',
    });
    await assert.rejects(bundleHookPath({ code }), /second copy of .*state\.ts/);
  });

  test("import.meta in a bundled module outside hooks/ (it would be the bundle's URL)", async () => {
    const code = codeFolder("meta", {
      "files/where.ts": "export const where = () => import.meta.url;\n",
      "hooks/hook-main.ts":
        'import { where } from "../files/where.ts";\nexport const runHook = () => where();\n',
    });
    await assert.rejects(bundleHookPath({ code }), /import\.meta would be the bundle's URL in .*where\.ts/);
  });
  test("import.meta other than its URL in a module of hooks/ (a script has none: esbuild would leave it empty)", async () => {
    const code = codeFolder("meta-folder", {
      "hooks/hook-main.ts": "export const runHook = () => import.meta.dirname;\n",
    });
    await assert.rejects(bundleHookPath({ code }), /would not behave as its modules: .*import\.meta/);
  });

  test("an import() of a computed name (the bundle's script would have no loader for it)", async () => {
    const code = codeFolder("computed", {
      "hooks/hook-main.ts":
        'export async function runHook(name: string) { return (await import("../core/" + name)).parse(); }\n',
    });
    await assert.rejects(bundleHookPath({ code }), /dynamic imports are not all of an unbundled module/);
  });

  test("the bundle imports the modules left out through its parameter, not with import()", async () => {
    const code = codeFolder("through", {
      "hooks/hook-main.ts":
        'export async function runHook() { return [await import("./hook-gates.ts"), await import("../core/spec-file.ts")]; }\n',
    });
    const text = readFileSync(await bundleHookPath({ code }), "utf8");
    assert.equal(text.match(/__bundleImport\("\.\/hook-gates\.ts"\)/g)?.length, 1);
    assert.equal(text.match(/__bundleImport\("\.\/\.\.\/core\/spec-file\.ts"\)/g)?.length, 1);
    assert.doesNotMatch(text, /\bimport\(/);
  });

  test("a bundle that is not ASCII (V8 would hold its text in two bytes a character)", async () => {
    const code = codeFolder("ascii", {
      "hooks/hook-main.ts": "export const runHook = (line: string) => /[\u2014]/.test(line);\n",
    });
    await assert.rejects(bundleHookPath({ code }), /not ASCII/);
  });
});

describe("the bundle that `npm run build` makes, as the package ships it", () => {
  let sandbox: Sandbox;
  before(async () => {
    sandbox = await createSandbox({ "math.js": "export const add = (a, b) => a * b;\n", "loop.yaml": spec });
    delete sandbox.env.NODE_TEST_CONTEXT;
  });
  after(() => sandbox.cleanup());

  test("answers a stop from dist/ with hook-main replaced by a stand-in (so the bundle itself ran)", () => {
    const root = new URL("..", import.meta.url).pathname;
    const pkg = join(sandbox.root, "built");
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
    writeFileSync(
      join(pkg, "dist", "hooks", "hook-main.js"),
      `export async function runHook() { process.stdout.write(${JSON.stringify(`${JSON.stringify(standIn)}\n`)}); return 0; }\n`,
    );
    rmSync(join(pkg, "src"), { recursive: true });
    const run = spawnSync(process.execPath, [join(pkg, "bin", "loopwright.js"), "hook", "stop"], {
      cwd: sandbox.repo,
      env: { ...sandbox.env, LOOPWRIGHT_FROM: "", XDG_CACHE_HOME: join(sandbox.root, "cache") },
      input: JSON.stringify({ cwd: sandbox.repo, session_id: "s1" }),
      encoding: "utf8",
    });
    assert.equal(run.status, 0, run.stderr);
    const answer = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.equal(answer.decision, "block", run.stdout);
    assert.match(String(answer.reason), /tests/);
    // The launcher's entry, which the build makes beside the bundle, answers the same.
    const fromEntry = spawnSync(
      process.execPath,
      [join(pkg, "dist", "hooks", "hook-entry.cjs"), "hook", "stop"],
      {
        cwd: sandbox.repo,
        env: { ...sandbox.env, LOOPWRIGHT_FROM: "", XDG_CACHE_HOME: join(sandbox.root, "cache") },
        input: JSON.stringify({ cwd: sandbox.repo, session_id: "s1" }),
        encoding: "utf8",
      },
    );
    assert.equal(fromEntry.status, 0, fromEntry.stderr);
    const entryAnswer = JSON.parse(fromEntry.stdout) as Record<string, unknown>;
    assert.equal(entryAnswer.decision, "block", fromEntry.stdout);
    assert.match(String(entryAnswer.reason), /tests/);
  });
});
