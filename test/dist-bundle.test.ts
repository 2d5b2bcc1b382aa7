/**
 * What ships: `npm run build` in a copy of the package, src/ removed, and the real commands run from
 * its bin as a user's install runs them, through the bundle (scripts/bundle-dist.ts). dist/'s own entry
 * modules are replaced by stand-ins that fail, so a command that answers ran the bundle: `--version`,
 * `validate`, a scripted `run` to the end, `ls`, `show`, a hook's stop, and `serve` (its controller
 * process and the dashboard's assets, which it reads by URL). A bundle that does not load is said
 * (exit 2, a hook's message), not replaced silently; without the bundle, dist/'s modules run.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { bundleDist } from "../scripts/bundle-dist.ts";
import { type CliResult, createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { startService, stopService, submit, waitForStopped } from "./support/service-harness.ts";

const root = new URL("..", import.meta.url).pathname;
const tracer = new URL("./support/module-trace.mjs", import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
const loopSpec = `name: shipped
goal: answer.txt says 42.
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { answer.txt: "41\\n" }
    - write: { answer.txt: "42\\n" }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: answer, kind: tests-pass, run: "grep -qx 42 answer.txt" }
budget: { maxIterations: 3 }
`;
const hookSpec = `name: hooked
goal: add() adds.
maker: { engine: command, run: "true" }
gates:
  - { id: tests, kind: tests-pass, run: "grep -q 'a + b' math.js" }
`;
/**
 * The stand-in for dist/'s entry modules: it fails the command, so an answer came from a bundle. Not
 * sandbox/sandbox-availability: the hook path's unbundled gate runner imports it from dist/.
 */
const standIn = 'process.stdout.write("dist module ran\\n"); process.exit(9);\n';
const entryModules = ["cli/main", "cli/read-commands", "service/controller-main", "hooks/hook-main"];

describe("the package as `npm run build` makes it, run from its bin without src/", () => {
  let sandbox: Sandbox;
  /** The sandbox, with the CLI the built package's bin. */
  let shipped: Sandbox;
  let pkg: string;
  before(async () => {
    sandbox = await createSandbox({ "README.md": "# repo\n", "answer.txt": "0\n" });
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
    for (const module of entryModules) writeFileSync(join(pkg, "dist", `${module}.js`), standIn);
    shipped = withBinary(sandbox, join(pkg, "bin", "loopwright.js"));
  });
  after(() => sandbox.cleanup());

  test("--version, validate, a scripted run to the end, ls and show", async () => {
    const version = await shipped.cli(["--version"]);
    assert.equal(version.stdout, `${manifest.version}\n`);
    const spec = await sandbox.spec(loopSpec);
    const validated = await shipped.cli(["validate", spec]);
    assert.equal(validated.code, 0, validated.stdout + validated.stderr);
    const run = await shipped.cli(["run", spec]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /iteration 1: failed/);
    assert.match(run.stdout, /stopped: verified/);
    assert.equal(await sandbox.git("show", "loop/shipped:answer.txt"), "42");
    const listed = await shipped.cli(["ls"]);
    assert.match(listed.stdout, /shipped\s+stopped \(verified\)/, listed.stdout + listed.stderr);
    const shown = await shipped.cli(["show", "shipped", "--json"]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal((JSON.parse(shown.stdout) as { status: string }).status, "stopped");
  });

  test("ls and show load from the bundle what they load from the modules: no package, no heavy builtin", () => {
    // A chunk's imports from outside the bundle load with it: a module sharing its chunk could add some.
    for (const args of [["ls"], ["show", "shipped"]]) {
      const trace = join(sandbox.root, `trace-${args[0]}.txt`);
      const result = spawnSync(
        process.execPath,
        ["--import", tracer, join(pkg, "bin", "loopwright.js"), ...args],
        {
          cwd: sandbox.repo,
          env: { ...sandbox.env, LOOPWRIGHT_FROM: "", LOOPWRIGHT_MODULE_TRACE: trace },
          encoding: "utf8",
        },
      );
      assert.equal(result.status, 0, result.stdout + result.stderr);
      const loaded = readFileSync(trace, "utf8").split("\n").filter(Boolean);
      assert.ok(
        loaded.some((url) => url.includes("/dist/bundle/")),
        "the bundle ran",
      );
      const unwanted = [
        "/node_modules/",
        "builtin:child_process",
        "builtin:net",
        "builtin:tty",
        "builtin:crypto",
        "builtin:worker_threads",
      ];
      assert.deepEqual(
        loaded.filter((url) => unwanted.some((name) => url.includes(name))),
        [],
        `${args.join(" ")} from the bundle`,
      );
    }
  });

  test("a hook's stop runs its gate and blocks", async () => {
    const hooked = join(sandbox.root, "hooked");
    mkdirSync(hooked);
    const git = (...args: string[]) =>
      spawnSync("git", ["-c", "user.name=T", "-c", "user.email=t@example.com", ...args], {
        cwd: hooked,
        env: sandbox.env,
      });
    git("init", "-q", "-b", "main");
    writeFileSync(join(hooked, "loop.yaml"), hookSpec);
    writeFileSync(join(hooked, "math.js"), "export const add = (a, b) => a - b;\n");
    const init = await shipped.cli(["init", "claude"], { cwd: hooked });
    assert.equal(init.code, 0, init.stdout + init.stderr);
    git("add", "-A");
    git("commit", "-q", "-m", "hook mode");
    writeFileSync(join(hooked, "math.js"), "export const add = (a, b) => a * b;\n");
    const answer = hook(pkg, sandbox, hooked, "stop");
    assert.equal(answer.decision, "block", JSON.stringify(answer));
    assert.match(String(answer.reason), /tests/);
  });

  test("serve runs a submitted loop in its controller and serves the dashboard's assets", async () => {
    const service = await startService(shipped);
    try {
      await submit(shipped, "served", loopSpec.replace("name: shipped", "name: served"));
      await waitForStopped(shipped, ["served"], "the served loop to finish");
      const info = JSON.parse(readFileSync(join(sandbox.home, "service.json"), "utf8")) as { url: string };
      const css = await fetch(`${info.url}/assets/dashboard.css`);
      assert.equal(css.status, 200);
      assert.equal(
        await css.text(),
        readFileSync(join(root, "src", "server", "dashboard", "assets", "dashboard.css"), "utf8"),
      );
      const listed = await shipped.cli(["ls"]);
      assert.match(listed.stdout, /served\s+stopped \(verified\)/, listed.stdout + listed.stderr);
    } finally {
      await stopService(service);
    }
  });

  test("a bundle that does not load is said; without the bundle, dist/'s modules run", async () => {
    const bundle = join(pkg, "dist", "bundle");
    const main = join(bundle, "main.js");
    const kept = readFileSync(main, "utf8");
    try {
      writeFileSync(main, "export const main = ;\n");
      const broken = await shipped.cli(["ls"]);
      assert.equal(broken.code, 2);
      assert.match(broken.stderr, /bundle\/main\.js does not load .*reinstall loopwright/);
    } finally {
      writeFileSync(main, kept);
    }
    renameSync(bundle, `${bundle}.kept`);
    try {
      const modules = await shipped.cli(["ls"]);
      assert.equal(modules.stdout, "dist module ran\n");
    } finally {
      renameSync(`${bundle}.kept`, bundle);
    }
    assert.equal((await shipped.cli(["ls"])).code, 0);
  });
});

describe("the bundle's build keeps what modules find next to themselves, or fails", () => {
  let sandbox: Sandbox;
  before(async () => {
    sandbox = await createSandbox();
  });
  after(() => sandbox.cleanup());

  /** A code folder named src (so .ts) with the bundle's entries as stubs, `files`, and `packages`. */
  const codeFolder = (name: string, files: Record<string, string>, packages: Record<string, string> = {}) => {
    const code = join(sandbox.root, name, "src");
    const all: Record<string, string> = {
      "cli/main.ts": "export const main = () => 0;\n",
      "cli/read-commands.ts": "export const parseReadCommand = () => undefined;\n",
      "sandbox/sandbox-availability.ts": "export const primeSandboxAvailability = () => {};\n",
      "service/controller-main.ts": "export {};\n",
      ...files,
    };
    for (const [path, text] of Object.entries(all)) {
      mkdirSync(join(code, path, ".."), { recursive: true });
      writeFileSync(join(code, path), text);
    }
    for (const [path, text] of Object.entries(packages)) {
      mkdirSync(join(code, "..", "node_modules", path, ".."), { recursive: true });
      writeFileSync(join(code, "..", "node_modules", path), text);
    }
    return code;
  };

  test("import.meta.url, .dirname and .resolve are the module's own; a spawner's finds the bundled entry", async () => {
    const code = codeFolder("own", {
      "cli/data.txt": "next to main\n",
      "cli/main.ts": `import { readFileSync } from "node:fs";
import { join } from "node:path";
import { controllerEntry } from "../service/controller-process.ts";
export const main = () => [
  readFileSync(new URL("./data.txt", import.meta.url), "utf8"),
  readFileSync(join(import.meta.dirname, "data.txt"), "utf8"),
  import.meta.resolve("./data.txt"),
  controllerEntry,
];
`,
      "service/controller-process.ts":
        'export const controllerEntry = new URL("./controller-main.js", import.meta.url).href;\n',
    });
    const into = join(sandbox.root, "own", "out");
    const folder = await bundleDist({ code, into });
    const { main } = (await import(join(folder, "main.js"))) as { main: () => string[] };
    assert.deepEqual(main(), [
      "next to main\n",
      "next to main\n",
      pathToFileURL(join(code, "cli", "data.txt")).href,
      pathToFileURL(join(folder, "controller-main.js")).href,
    ]);
  });

  test("an import.meta property it cannot keep", async () => {
    const code = codeFolder("main", { "cli/main.ts": "export const main = () => import.meta.main;\n" });
    await assert.rejects(bundleDist({ code }), /cannot keep cli\/main: import\.meta\.main/);
  });

  test("a bundled package that reads __dirname", async () => {
    const code = codeFolder(
      "dirname",
      { "cli/main.ts": 'import { parse } from "yaml";\nexport const main = () => parse("a");\n' },
      {
        "yaml/package.json": '{ "name": "yaml", "main": "index.js" }',
        "yaml/index.js": "exports.parse = () => __dirname;\n",
      },
    );
    await assert.rejects(bundleDist({ code }), /bundled packages use .*yaml\/index\.js/);
  });

  test("a package left outside that depends on a bundled one (two copies of it)", async () => {
    const code = codeFolder(
      "clash",
      {
        "cli/main.ts":
          'import { parse } from "yaml";\nimport { outside } from "outside";\nexport const main = () => [parse, outside];\n',
      },
      {
        "yaml/package.json": '{ "name": "yaml", "type": "module", "main": "index.js" }',
        "yaml/index.js": "export const parse = () => 1;\n",
        "outside/package.json":
          '{ "name": "outside", "type": "module", "main": "index.js", "dependencies": { "yaml": "*" } }',
        "outside/index.js": 'export { parse as outside } from "yaml";\n',
      },
    );
    await assert.rejects(bundleDist({ code }), /outside → yaml/);
  });
});

/** `sandbox` with `cli` and `spawnCli` running `binary` instead of the checkout's bin. */
function withBinary(sandbox: Sandbox, binary: string): Sandbox {
  const spawnCli: Sandbox["spawnCli"] = (args, options = {}) => {
    const child: ChildProcess = spawn(process.execPath, [binary, ...args], {
      cwd: options.cwd ?? sandbox.repo,
      env: { ...sandbox.env, LOOPWRIGHT_FROM: "", ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });
    const done = new Promise<CliResult>((resolve) => {
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
    return Object.assign(child, { output: () => ({ code: child.exitCode, stdout, stderr }), done });
  };
  return {
    ...sandbox,
    spawnCli,
    cli: async (args, options = {}) => {
      const child = spawnCli(args, options);
      const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000);
      const result = await child.done;
      clearTimeout(timer);
      return result;
    },
  };
}

/** Runs `hook <event>` in `repo` from the package's bin, as Claude Code would; its JSON answer. */
function hook(pkg: string, sandbox: Sandbox, repo: string, event: string): Record<string, unknown> {
  const run = spawnSync(process.execPath, [join(pkg, "bin", "loopwright.js"), "hook", event], {
    cwd: repo,
    env: { ...sandbox.env, LOOPWRIGHT_FROM: "", XDG_CACHE_HOME: join(sandbox.root, "cache") },
    input: JSON.stringify({ cwd: repo, session_id: "s1" }),
    encoding: "utf8",
  });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}
