/**
 * Start-up stays light: what real processes of the CLI load (a module-load trace through
 * test/support/module-trace.mjs), which code bin/loopwright.js runs (LOOPWRIGHT_FROM, dist/ or src/),
 * and its compile cache (a cache folder that cannot be made leaves the command working).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { criterionGate } from "../src/core/criterion-gate.ts";
import { gateSchema } from "../src/core/spec.ts";
import { binary, createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const tracer = new URL("./support/module-trace.mjs", import.meta.url).pathname;
/** Packages a read-only or listing command never needs. */
const heavy = [
  "/node_modules/ai/",
  "/node_modules/@ai-sdk/",
  "/node_modules/@octokit/",
  "/node_modules/@gitbeaker/",
  "/node_modules/hono/",
  "/node_modules/@hono/",
];

/** What runs an engine's turn (loaded at the first turn), and what only some specs need: never to check a spec. */
const turnModules = [
  // Nor does a spec that finishes on a branch need the forge, or one that is not a tasks loop its list.
  "/forge/",
  "/loop/strategies/task-list.",
  "/engines/run-command-turn.",
  "/engines/play-scripted-turn.",
  "/engines/claude-code/run-claude-code-turn.",
  "/engines/codex/run-codex-turn.",
  "/engines/copilot/run-copilot-turn.",
  "/engines/agent-cli/run-cli-turn.",
  "/process/run-command.",
];

/**
 * Builtins a read-only command never needs: node:crypto and worker_threads (loaded with node:util's
 * exports) cost milliseconds of start-up each.
 */
const heavyBuiltins = ["builtin:crypto", "builtin:worker_threads"];

/**
 * Runs `loopwright <args>` with the module tracer: the URLs it loaded (and `builtin:<name>` for each
 * Node builtin), the git commands it ran (LOOPWRIGHT_GIT_TRACE), and its exit code.
 */
function traced(
  sandbox: Sandbox,
  args: string[],
  input = "",
  cwd = sandbox.repo,
): { code: number | null; modules: string[]; gitCommands: string[]; output: string } {
  const trace = join(sandbox.root, `trace-${args[0]}-${Date.now()}.txt`);
  const gitTrace = join(sandbox.root, `git-trace-${args[0]}-${Date.now()}.txt`);
  const result = spawnSync(process.execPath, ["--import", tracer, binary, ...args], {
    cwd,
    env: { ...sandbox.env, LOOPWRIGHT_MODULE_TRACE: trace, LOOPWRIGHT_GIT_TRACE: gitTrace },
    input,
    encoding: "utf8",
  });
  const lines = (path: string) =>
    existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean) : [];
  return {
    code: result.status,
    modules: lines(trace),
    gitCommands: lines(gitTrace).map((line) => line.split(" ")[1]),
    output: result.stdout + result.stderr,
  };
}

describe("what a command loads", () => {
  let sandbox: Sandbox;
  before(async () => {
    sandbox = await createSandbox();
    await sandbox.write({
      "loop.yaml": `name: light\ngoal: Stay light.\nmaker: { engine: command, run: "true" }\nverifier: { engine: command, run: "cat" }\ngates:\n  - { id: tests, kind: tests-pass, run: "true" }\n`,
    });
  });
  after(() => sandbox.cleanup());

  test("ls loads no AI SDK, forge client, web server or schema library", () => {
    const { code, modules, output } = traced(sandbox, ["ls"]);
    assert.match(output, /no loops in /);
    assert.equal(code, 0, output);
    assert.ok(
      modules.some((url) => url.includes("/cli/commands/list-command.")),
      "the trace saw ls run",
    );
    for (const name of [...heavy, "/node_modules/zod/", "/node_modules/yaml/"])
      assert.deepEqual(
        modules.filter((url) => url.includes(name)),
        [],
        `ls loaded ${name}`,
      );
  });

  test("run and show of a loop load no AI SDK, forge client or web server, run no commander; show no schema library", async () => {
    const spec = await sandbox.spec(
      `name: shown\ngoal: Be shown.\nrepo: ./repo\nmaker: { engine: command, run: "true" }\nverifier: { engine: command, run: "cat" }\ngates:\n  - { id: red, kind: tests-pass, run: "false" }\nbudget: { maxIterations: 1 }\n`,
    );
    // The run itself (command engines, no forge) loads no AI SDK, forge client or web server either.
    const run = traced(sandbox, ["run", spec]);
    assert.equal(run.code, 3, run.output);
    for (const name of heavy)
      assert.deepEqual(
        run.modules.filter((url) => url.includes(name)),
        [],
        `run loaded ${name}`,
      );
    // Its plain form is parsed without commander (src/cli/read-commands.ts).
    assert.deepEqual(
      run.modules.filter((url) => url.includes("/node_modules/commander/")),
      [],
      "run loaded commander",
    );
    const { code, modules, output } = traced(sandbox, ["show", "shown"]);
    assert.equal(code, 0, output);
    assert.match(output, /red/);
    for (const name of [...heavy, "/node_modules/zod/", "/node_modules/yaml/"])
      assert.deepEqual(
        modules.filter((url) => url.includes(name)),
        [],
        `show loaded ${name}`,
      );
  });

  test("ls and show start no git process and load no node:crypto or worker_threads, from a subfolder too", async () => {
    await sandbox.write({ "src/app.ts": "export {};\n" });
    const spec = await sandbox.spec(
      `name: plain\ngoal: Be listed.\nrepo: ./repo\nmaker: { engine: command, run: "true" }\nverifier: { engine: command, run: "cat" }\ngates:\n  - { id: red, kind: tests-pass, run: "false" }\nbudget: { maxIterations: 1 }\n`,
    );
    assert.equal(traced(sandbox, ["run", spec]).code, 3);
    for (const args of [["ls"], ["show", "plain"]]) {
      const { code, modules, gitCommands, output } = traced(sandbox, args, "", join(sandbox.repo, "src"));
      assert.equal(code, 0, output);
      // The loop is found as one of this repository's: the repository was resolved right, without git.
      assert.match(output, /plain/);
      assert.deepEqual(gitCommands, [], `${args[0]} ran git`);
      for (const name of heavyBuiltins)
        assert.deepEqual(
          modules.filter((url) => url === name),
          [],
          `${args[0]} loaded ${name}`,
        );
    }
  });

  test("ls and show load neither commander nor node:child_process, and no output stream into a pipe", async () => {
    const spec = await sandbox.spec(
      `name: piped-read\ngoal: Be read.\nrepo: ./repo\nmaker: { engine: command, run: "true" }\nverifier: { engine: command, run: "cat" }\ngates:\n  - { id: red, kind: tests-pass, run: "false" }\nbudget: { maxIterations: 1 }\n`,
    );
    assert.equal(traced(sandbox, ["run", spec]).code, 3);
    for (const args of [["ls"], ["ls", "--json"], ["show", "piped-read"], ["show", "--json", "piped-read"]]) {
      // spawnSync's stdout and stderr are pipes: process.stdout there would be a net socket.
      const { code, modules, output } = traced(sandbox, args);
      assert.equal(code, 0, output);
      assert.match(output, /piped-read/);
      for (const name of ["/node_modules/commander/", "builtin:child_process", "builtin:net", "builtin:tty"])
        assert.deepEqual(
          modules.filter((url) => url.includes(name)),
          [],
          `${args.join(" ")} loaded ${name}`,
        );
    }
    // A usage mistake in a plain form is worded without commander too; any other form is commander's.
    const missing = traced(sandbox, ["show", "no-such-loop"]);
    assert.equal(missing.code, 2);
    assert.match(missing.output, /^loopwright: no loop named or with id 'no-such-loop'/);
    assert.deepEqual(
      missing.modules.filter((url) => url.includes("/node_modules/commander/")),
      [],
    );
    const help = traced(sandbox, ["show", "--help"]);
    assert.equal(help.code, 0);
    assert.match(help.output, /Usage: loopwright show \[options\] <loop>/);
  });

  test("validate loads no AI SDK, forge client or web server for a spec that uses none", () => {
    const { code, modules, output } = traced(sandbox, ["validate", "loop.yaml"]);
    assert.equal(code, 0, output);
    assert.ok(
      modules.some((url) => url.includes("/node_modules/yaml/")),
      "the trace saw the spec parsed",
    );
    for (const name of heavy)
      assert.deepEqual(
        modules.filter((url) => url.includes(name)),
        [],
        `validate loaded ${name}`,
      );
    // Checking engines builds them; their turns (processes, sandboxes, translators) load at a first turn.
    for (const name of turnModules)
      assert.deepEqual(
        modules.filter((url) => url.includes(name)),
        [],
        `validate loaded ${name}`,
      );
  });

  test("hook stop and prompt, once the spec is cached, load neither the CLI framework nor the spec's libraries", () => {
    const input = JSON.stringify({ session_id: "lazy", cwd: sandbox.repo });
    const first = traced(sandbox, ["hook", "stop"], input);
    assert.equal(first.code, 0, first.output);
    assert.ok(
      first.modules.some((url) => url.includes("/node_modules/yaml/")),
      "the first stop parsed the spec",
    );
    for (const event of ["stop", "prompt"]) {
      const { code, modules, gitCommands, output } = traced(sandbox, ["hook", event], input);
      // One git process reads the working tree; a prompt, which hashes nothing, loads no node:crypto.
      assert.deepEqual(gitCommands, ["status"], `hook ${event} ran git`);
      if (event === "prompt")
        assert.deepEqual(
          modules.filter((url) => heavyBuiltins.includes(url)),
          [],
          "hook prompt loaded node:crypto or worker_threads",
        );
      assert.equal(code, 0, output);
      assert.ok(
        modules.some((url) => url.includes(`/hooks/events/${event}-hook.`)),
        `the trace saw ${event} run`,
      );
      for (const name of [...heavy, "/node_modules/commander/", "/node_modules/zod/", "/node_modules/yaml/"])
        assert.deepEqual(
          modules.filter((url) => url.includes(name)),
          [],
          `hook ${event} loaded ${name}`,
        );
    }
  });
});

test("a criterion gate built by hand is the gate the schema gives", () => {
  assert.deepEqual(
    criterionGate("criterion-1", "It works."),
    gateSchema.parse({ id: "criterion-1", kind: "agent-check", assert: "It works." }),
  );
});

describe("bin/loopwright.js: which code runs, and its compile cache", () => {
  let sandbox: Sandbox;
  let pkg: string;
  before(async () => {
    sandbox = await createSandbox();
    // A package with stand-ins for both entries: each says which one ran.
    pkg = join(sandbox.root, "pkg");
    mkdirSync(join(pkg, "bin"), { recursive: true });
    copyFileSync(binary, join(pkg, "bin", "loopwright.js"));
    copyFileSync(new URL("../package.json", import.meta.url), join(pkg, "package.json"));
    for (const [folder, extension] of [
      ["src", "ts"],
      ["dist", "js"],
    ]) {
      mkdirSync(join(pkg, folder, "cli"), { recursive: true });
      writeFileSync(
        join(pkg, folder, "cli", `main.${extension}`),
        `export async function main(argv) { process.stdout.write("${folder} " + argv.join(" ") + "\\n"); return 0; }\n`,
      );
    }
  });
  after(() => sandbox.cleanup());

  const run = (env: NodeJS.ProcessEnv, args = ["ls"]) => {
    const result = spawnSync(process.execPath, [join(pkg, "bin", "loopwright.js"), ...args], {
      cwd: sandbox.repo,
      env: { ...sandbox.env, XDG_CACHE_HOME: join(sandbox.root, "cache"), ...env },
      encoding: "utf8",
    });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };

  test("a checkout runs src/ unless LOOPWRIGHT_FROM=dist; a bad value is a usage error", () => {
    assert.deepEqual(run({ LOOPWRIGHT_FROM: "" }), { code: 0, stdout: "src ls\n", stderr: "" });
    assert.deepEqual(run({ LOOPWRIGHT_FROM: "dist" }), { code: 0, stdout: "dist ls\n", stderr: "" });
    assert.deepEqual(run({ LOOPWRIGHT_FROM: "src" }), { code: 0, stdout: "src ls\n", stderr: "" });
    const bad = run({ LOOPWRIGHT_FROM: "build" });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /LOOPWRIGHT_FROM is "build": use src or dist/);
    const hook = run({ LOOPWRIGHT_FROM: "build" }, ["hook", "stop"]);
    assert.equal(hook.code, 0, "a hook never fails Claude Code");
    assert.match(JSON.parse(hook.stdout).systemMessage, /LOOPWRIGHT_FROM/);
  });

  test("the compile cache goes under the user's cache folder, and a folder that cannot be made changes nothing", () => {
    assert.equal(run({}).code, 0);
    assert.deepEqual(readdirSync(join(sandbox.root, "cache", "loopwright", "compile-cache")).length, 1);
    const blocked = join(sandbox.root, "a-file");
    writeFileSync(blocked, "not a folder\n");
    assert.deepEqual(run({ XDG_CACHE_HOME: blocked }), { code: 0, stdout: "src ls\n", stderr: "" });
    assert.deepEqual(run({ XDG_CACHE_HOME: "", HOME: blocked }), { code: 0, stdout: "src ls\n", stderr: "" });
  });

  test("the published package (no src/) runs dist/; asking for src/ there says it is missing", () => {
    const published = join(sandbox.root, "published");
    mkdirSync(join(published, "bin"), { recursive: true });
    mkdirSync(join(published, "dist", "cli"), { recursive: true });
    copyFileSync(join(pkg, "bin", "loopwright.js"), join(published, "bin", "loopwright.js"));
    copyFileSync(join(pkg, "dist", "cli", "main.js"), join(published, "dist", "cli", "main.js"));
    copyFileSync(join(pkg, "package.json"), join(published, "package.json"));
    const start = (env: NodeJS.ProcessEnv) =>
      spawnSync(process.execPath, [join(published, "bin", "loopwright.js"), "ls"], {
        cwd: sandbox.repo,
        env: { ...sandbox.env, XDG_CACHE_HOME: join(sandbox.root, "cache"), ...env },
        encoding: "utf8",
      });
    assert.equal(start({ LOOPWRIGHT_FROM: "" }).stdout, "dist ls\n");
    const missing = start({ LOOPWRIGHT_FROM: "src" });
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /src\/cli\/main\.ts is missing/);
  });
});

describe("a Node without process.getBuiltinModule (before 20.16 and 22.3)", () => {
  // Simulated in this Node 24: the function removed and the version faked before bin/loopwright.js runs.
  const olderNode =
    'delete process.getBuiltinModule; Object.defineProperty(process.versions, "node", { value: "20.15.0" });';
  const run = (args: string[]) =>
    spawnSync(
      process.execPath,
      ["--import", `data:text/javascript,${encodeURIComponent(olderNode)}`, binary, ...args],
      {
        encoding: "utf8",
        input: "",
      },
    );

  test("a hook still answers in JSON with exit 0, and the CLI says which Node it needs", () => {
    const hook = run(["hook", "stop"]);
    assert.equal(hook.status, 0, hook.stderr);
    assert.match(JSON.parse(hook.stdout).systemMessage, /needs Node\.js 24 or newer .*checked nothing/);
    const cli = run(["ls"]);
    assert.equal(cli.status, 2);
    assert.match(cli.stderr, /needs Node\.js 24 or newer/);
    assert.doesNotMatch(cli.stderr, /TypeError/);
  });

  test("--version still answers", () => {
    const version = run(["--version"]);
    assert.equal(version.status, 0, version.stderr);
    assert.match(version.stdout, /^\d+\.\d+\.\d+/);
  });
});
