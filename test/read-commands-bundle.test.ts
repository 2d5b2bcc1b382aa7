/**
 * The read-only commands' bundle (scripts/bundle-read-commands.ts), which bin/loopwright.js runs for
 * `ls`, `show` and `validate` from dist/: they answer through it as the sources do while loading it
 * alone (the spec's parser, when a spec is parsed, beside it), a spec it validated is found in the spec
 * cache by the modules, the launcher leaves the commands to the modules when the bundle is stale,
 * missing or does not load, and the build refuses a bundle that would hold a second copy of a module,
 * move `import.meta`, load a costly import at every start, or miss a module it is meant to hold.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  bundledLazyModules,
  bundleReadCommands,
  readCommandsBundle,
  turnModules,
} from "../scripts/bundle-read-commands.ts";
import { binary, createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const tracer = new URL("./support/module-trace.mjs", import.meta.url).pathname;
const root = new URL("..", import.meta.url).pathname;

describe("the read-only commands' bundle that `npm run build` makes, run from the package without src/", () => {
  let sandbox: Sandbox;
  let pkg: string;
  let bundle: string;
  let samples = 0;
  const specs: Record<string, string> = {};
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
    bundle = join(pkg, "dist", readCommandsBundle);
    const engines = `maker: { engine: command, run: "true" }\nverifier: { engine: command, run: "cat" }\n`;
    specs.shown = await sandbox.spec(
      `name: shown\ngoal: Be shown.\nrepo: ./repo\n${engines}gates:\n  - { id: red, kind: tests-pass, run: "false" }\nbudget: { maxIterations: 1 }\n`,
      join(sandbox.root, "shown.yaml"),
    );
    specs.valid = await sandbox.spec(
      `name: checked\ngoal: Be checked.\nrepo: ./repo\n${engines}gates:\n  - { id: tests, kind: tests-pass, run: "true" }\n`,
      join(sandbox.root, "valid.yaml"),
    );
    specs.invalid = await sandbox.spec(
      `name: Broken Name!\ngoal: 12\nrepo: ./repo\nmaker: { engine: nope }\ngates:\n  - { id: x, kind: wrong }\n`,
      join(sandbox.root, "invalid.yaml"),
    );
    specs.hookOnly = await sandbox.spec(
      `name: hooked\ngoal: Be checked at each stop.\ngates:\n  - { id: tests, kind: tests-pass, run: "true" }\n`,
      join(sandbox.root, "hook-only.yaml"),
    );
    // A loop to list and show, run by the checkout's own sources.
    assert.equal((await sandbox.cli(["run", specs.shown])).code, 3);
  });
  after(() => sandbox.cleanup());

  /** `loopwright <args>` by `entry` (the package's bin unless said): exit code, output, modules loaded. */
  const cli = (args: string[], entry = join(pkg, "bin", "loopwright.js")) => {
    samples++;
    const trace = join(sandbox.root, `trace-${samples}.txt`);
    const run = spawnSync(process.execPath, ["--import", tracer, entry, ...args], {
      cwd: sandbox.repo,
      env: {
        ...sandbox.env,
        LOOPWRIGHT_FROM: "",
        LOOPWRIGHT_MODULE_TRACE: trace,
        XDG_CACHE_HOME: join(sandbox.root, "cache"),
      },
      encoding: "utf8",
    });
    const modules = existsSync(trace) ? readFileSync(trace, "utf8").split("\n").filter(Boolean) : [];
    return {
      answer: { code: run.status, stdout: run.stdout, stderr: run.stderr },
      /** The files of the package it loaded, relative to it. */
      files: modules
        .filter((url) => url.startsWith("file:"))
        .map((url) => new URL(url).pathname.slice(pkg.length + 1)),
      modules,
    };
  };
  const fromBundle = ["bin/loopwright.js", "dist/core/read-commands.bundle.js", "dist/errors.js"];
  /** Whether the process parsed a spec: the parser's bundle is a script run by node:vm (spec-parser-import.ts). */
  const parsedSpec = (modules: string[]) => modules.includes("builtin:vm");

  test("ls, show and validate answer as the sources do, from the bundle alone", () => {
    // The first command after the build compares the modules' contents with the bundle's digest
    // (node:crypto); the later ones find the stamp it kept (files/bundle-freshness.ts).
    assert.ok(cli(["ls"]).modules.includes("builtin:crypto"));
    const cases: [string[], boolean][] = [
      [["ls"], false],
      [["ls", "--json"], false],
      [["ls", "--all"], false],
      [["show", "shown"], false],
      [["show", "--json", "shown"], false],
      [["show", "no-such-loop"], false],
      // Parsed from scratch, by the parser's own bundle, a script (the sources' run keeps its own entry
      // in the spec cache, made by other code).
      [["validate", specs.valid], true],
      [["validate", specs.invalid], true],
      [["validate", specs.hookOnly], true],
      [["validate", join(sandbox.root, "missing.yaml")], false],
    ];
    for (const [args, parsed] of cases) {
      const bundled = cli(args);
      assert.deepEqual(bundled.answer, cli(args, binary).answer, args.join(" "));
      assert.deepEqual(bundled.files, fromBundle, args.join(" "));
      assert.equal(parsed, parsedSpec(bundled.modules), args.join(" "));
      for (const name of turnModules)
        assert.ok(
          !bundled.modules.some((url) => url.includes(`/${name}.`)),
          `${args.join(" ")} loaded ${name}`,
        );
      if (args[0] !== "validate")
        assert.deepEqual(
          bundled.modules.filter((url) => url === "builtin:child_process" || url === "builtin:crypto"),
          [],
          args.join(" "),
        );
    }
    assert.match(cli(["ls"]).answer.stdout, /^shown +stopped \(budget_exhausted\)/);
    assert.equal(cli(["validate", specs.invalid]).answer.code, 2);
    // A spec validated before is read from the spec cache: no parser.
    const first = cli(["validate", specs.valid]);
    const again = cli(["validate", specs.valid]);
    assert.deepEqual(again.answer, first.answer);
    assert.deepEqual(again.files, fromBundle);
    assert.equal(parsedSpec(again.modules), false);
  });

  test("a stale bundle (a module rebuilt since), a missing one or one that does not load leaves the commands to the modules", () => {
    // A module the bundle holds, outside core/ (whose files the spec cache's entries are stamped with).
    const main = join(pkg, "dist", "cli", "read-commands.js");
    const written = readFileSync(main);
    const expected = cli(["ls"]).answer;
    try {
      // Rebuilt (its size changed): the bundle's copy of it is stale.
      writeFileSync(main, Buffer.concat([written, Buffer.from("\n// rebuilt\n")]));
      const stale = cli(["ls"]);
      assert.deepEqual(stale.answer, expected);
      assert.ok(stale.files.includes("dist/cli/commands/list-command.js"), stale.files.join(" "));
      // The spec cache entry the bundle made is the modules' too: the spec is not parsed again.
      const validated = cli(["validate", specs.valid]);
      assert.equal(validated.answer.code, 0, validated.answer.stderr);
      assert.ok(validated.files.includes("dist/core/spec-cache.js"), validated.files.join(" "));
      assert.equal(parsedSpec(validated.modules), false);
    } finally {
      writeFileSync(main, written);
    }
    assert.deepEqual(cli(["ls"]).files, fromBundle);
    copyFileSync(bundle, `${bundle}.kept`);
    try {
      writeFileSync(bundle, "export const readOnlyMain = ;\n");
      const broken = cli(["ls"]);
      assert.deepEqual(broken.answer, expected);
      assert.ok(broken.files.includes("dist/cli/main.js"));
      rmSync(bundle);
      const missing = cli(["show", "shown"]);
      assert.equal(missing.answer.code, 0, missing.answer.stderr);
      assert.ok(missing.files.includes("dist/cli/commands/show-command.js"));
    } finally {
      copyFileSync(`${bundle}.kept`, bundle);
    }
    assert.deepEqual(cli(["ls"]).files, fromBundle);
  });

  test("a module edited to the same size since the bundle was made runs as edited; put back, the bundle runs again", () => {
    const command = join(pkg, "dist", "cli", "commands", "list-command.js");
    const written = readFileSync(command, "utf8");
    assert.ok(written.includes(" it  $"), "list-command.js words the iterations as expected");
    try {
      writeFileSync(command, written.replace(" it  $", " IT  $"));
      const patched = cli(["ls"]);
      assert.match(patched.answer.stdout, /^shown .* \d+ IT {2}\$0\.00/m, "ran the bundle's old copy of ls");
    } finally {
      writeFileSync(command, written);
    }
    const restored = cli(["ls"]);
    assert.match(restored.answer.stdout, /^shown .* \d+ it {2}\$0\.00/m);
    assert.deepEqual(restored.files, fromBundle);
  });

  test("any other form of the three is commander's (help, an unknown option)", () => {
    const help = cli(["ls", "--help"]);
    assert.equal(help.answer.code, 0);
    assert.match(help.answer.stdout, /Usage: loopwright ls \[options\]/);
    const unknown = cli(["validate", "--json"]);
    assert.equal(unknown.answer.code, 2);
    assert.deepEqual(unknown.answer, cli(["validate", "--json"], binary).answer);
  });
});

describe("the bundle's build refuses what would change behaviour", () => {
  let sandbox: Sandbox;
  before(async () => {
    sandbox = await createSandbox();
  });
  after(() => sandbox.cleanup());

  /**
   * A code folder named src (so .ts): errors, an entry that imports `imports` and lazily reaches every
   * module the bundle is meant to hold (each a stand-in), and `files` over them.
   */
  const codeFolder = (name: string, imports: string, files: Record<string, string>) => {
    const code = join(sandbox.root, name, "src");
    const lazy = bundledLazyModules.map((module) => `() => import("../${module}.ts")`).join(",\n  ");
    const all: Record<string, string> = {
      "errors.ts": "export class UsageError extends Error {}\n",
      "cli/read-only-main.ts": `${imports}\nexport const lazy = [\n  ${lazy},\n];\nexport const bundleIsCurrent = () => true;\nexport const readOnlyMain = () => lazy;\n`,
      ...Object.fromEntries(bundledLazyModules.map((module) => [`${module}.ts`, "export {};\n"])),
      ...files,
    };
    for (const [path, text] of Object.entries(all)) {
      mkdirSync(join(code, path, ".."), { recursive: true });
      writeFileSync(join(code, path), text);
    }
    return code;
  };

  test("a plain code folder bundles", async () => {
    const code = codeFolder(
      "plain",
      'import { UsageError } from "../errors.ts";\nexport { UsageError };',
      {},
    );
    const path = await bundleReadCommands({ code });
    assert.match(readFileSync(path, "utf8"), /from"\.\/\.\.\/errors\.ts"/);
  });

  test("a module both in the bundle and reached by one left out (two copies of its state)", async () => {
    const code = codeFolder(
      "twice",
      'import { counts } from "../state.ts";\nexport const later = () => import("../engines/elsewhere.ts");\nexport { counts };',
      {
        "state.ts": "export const counts = new Map();\n",
        "engines/elsewhere.ts": 'import { counts } from "../state.ts";\nexport const read = () => counts;\n',
      },
    );
    await assert.rejects(bundleReadCommands({ code }), /second copy of .*state\.ts/);
    assert.equal(existsSync(join(code, readCommandsBundle)), false, "nothing is written");
  });

  test("import.meta in a bundled module outside core/ (it would be the bundle's URL)", async () => {
    const code = codeFolder("meta", 'import { where } from "../files/where.ts";\nexport { where };', {
      "files/where.ts": "export const where = () => import.meta.url;\n",
    });
    await assert.rejects(
      bundleReadCommands({ code }),
      /import\.meta would be the bundle's URL in .*where\.ts/,
    );
  });

  test("a costly import in a lazily bundled module (it would load at every start)", async () => {
    const code = codeFolder("eager", "", {
      "loop/preflight.ts": 'import { execFile } from "node:child_process";\nexport const run = execFile;\n',
    });
    await assert.rejects(bundleReadCommands({ code }), /would import node:child_process at every start/);
  });

  test("a module it is meant to hold that nothing reaches any more", async () => {
    const code = codeFolder("unreached", "", {
      "cli/read-only-main.ts":
        "export const bundleIsCurrent = () => true;\nexport const readOnlyMain = () => undefined;\n",
    });
    await assert.rejects(bundleReadCommands({ code }), /no longer reaches .*list-command\.ts/);
  });
});
