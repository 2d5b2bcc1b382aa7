/**
 * The spec cache (src/core/spec-cache.ts): `validate` and `run` of a spec unchanged since it was last
 * read give the answers a fresh parse gives, without loading the YAML parser or the schema library
 * (seen in real processes' module traces); any change to what the parse read (the spec, a scripted
 * engine's script file) is parsed again, an invalid spec is never kept, and a cache that cannot be
 * written changes nothing.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  loadSpecFileCached,
  loadSpecFileForAnyModeCached,
  maximumSpecCacheEntries,
} from "../src/core/spec-cache.ts";
import { loadSpecFile } from "../src/core/spec-file.ts";
import { SpecError } from "../src/errors.ts";
import { binary, createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const tracer = new URL("./support/module-trace.mjs", import.meta.url).pathname;
const specLibraries = ["/node_modules/zod/", "/node_modules/yaml/"];

/** Runs `loopwright <args>` with the module tracer: its exit code, output and the modules it loaded. */
function traced(
  sandbox: Sandbox,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): { code: number | null; stdout: string; stderr: string; modules: string[] } {
  const trace = join(sandbox.root, `trace-${args[0]}-${process.hrtime.bigint()}.txt`);
  const result = spawnSync(process.execPath, ["--import", tracer, binary, ...args], {
    cwd: sandbox.repo,
    env: { ...sandbox.env, ...env, LOOPWRIGHT_MODULE_TRACE: trace },
    encoding: "utf8",
  });
  const modules = existsSync(trace) ? readFileSync(trace, "utf8").split("\n").filter(Boolean) : [];
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, modules };
}

function loadedSpecLibraries(modules: string[]): string[] {
  return modules.filter((url) => specLibraries.some((name) => url.includes(name)));
}

const validSpec = `name: cached
goal: Be read once.
repo: ./repo
maker: { engine: command, run: "true" }
verifier: { engine: command, run: "cat" }
gates:
  - { id: tests, kind: tests-pass, run: "true" }
`;

describe("validate and run of an unchanged spec", () => {
  let sandbox: Sandbox;
  before(async () => {
    sandbox = await createSandbox();
  });
  after(() => sandbox.cleanup());

  test("a second validate answers the same, without the YAML parser or the schema library", async () => {
    const spec = await sandbox.spec(validSpec, join(sandbox.root, "same.yaml"));
    const first = traced(sandbox, ["validate", spec]);
    assert.equal(first.code, 0, first.stderr);
    assert.notDeepEqual(loadedSpecLibraries(first.modules), [], "the first validate parsed the spec");
    const second = traced(sandbox, ["validate", spec]);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout, first.stdout);
    assert.equal(second.stderr, first.stderr);
    assert.deepEqual(loadedSpecLibraries(second.modules), []);
  });

  test("run after validate reads the spec from the cache and runs the loop as usual", async () => {
    const spec = await sandbox.spec(
      `${validSpec.replace("name: cached", "name: cached-run").replace('tests-pass, run: "true"', 'tests-pass, run: "false"')}budget: { maxIterations: 1 }\n`,
      join(sandbox.root, "run.yaml"),
    );
    const validated = traced(sandbox, ["validate", spec]);
    assert.equal(validated.code, 0, validated.stderr);
    const run = traced(sandbox, ["run", spec]);
    // The gate fails and the budget (1 iteration) is spent: exit 3, as without a cache.
    assert.equal(run.code, 3, run.stdout + run.stderr);
    assert.match(run.stdout, /loop cached-run: branch loop\/cached-run/);
    assert.match(run.stdout, /stopped: budget_exhausted/);
    const beforeMaker = run.modules.slice(
      0,
      run.modules.findIndex((url) => url.includes("/loop/runner.")),
    );
    assert.deepEqual(loadedSpecLibraries(beforeMaker), []);
  });

  test("run of a spec parsed from scratch writes its entry once the maker's turn is under way", async () => {
    const home = join(sandbox.root, "run-writes-home");
    const seen = join(sandbox.root, "entries-the-maker-saw.txt");
    const spec = await sandbox.spec(
      `${validSpec
        .replace("name: cached", "name: run-writes")
        .replace('run: "true" }', `run: "ls ${join(home, "cache", "specs")} > ${seen} 2>/dev/null; true" }`)
        .replace('tests-pass, run: "true"', 'tests-pass, run: "false"')}budget: { maxIterations: 1 }\n`,
      join(sandbox.root, "run-writes.yaml"),
    );
    const run = traced(sandbox, ["run", spec], { LOOPWRIGHT_HOME: home });
    assert.equal(run.code, 3, run.stdout + run.stderr);
    // Not written on the way to the maker's first command...
    assert.ok(existsSync(seen), "the maker ran");
    assert.equal(readFileSync(seen, "utf8"), "");
    // ...but by the end of the run: the next command reads it.
    assert.equal(readdirSync(join(home, "cache", "specs")).length, 1);
    const validated = traced(sandbox, ["validate", spec], { LOOPWRIGHT_HOME: home });
    assert.equal(validated.code, 0, validated.stderr);
    assert.deepEqual(loadedSpecLibraries(validated.modules), []);
  });

  test("an edited spec is read again: its new problems are reported, and its new answer given", async () => {
    const spec = await sandbox.spec(validSpec, join(sandbox.root, "edited.yaml"));
    assert.equal(traced(sandbox, ["validate", spec]).code, 0);
    writeFileSync(spec, validSpec.replace("kind: tests-pass", "kind: tests-passing"));
    const broken = traced(sandbox, ["validate", spec]);
    assert.equal(broken.code, 2);
    assert.match(broken.stderr, /edited\.yaml:7: gates\[0\]\.kind: /);
    // An invalid spec is never kept: asked again, the parser reports it again.
    const again = traced(sandbox, ["validate", spec]);
    assert.equal(again.stderr, broken.stderr);
    assert.notDeepEqual(loadedSpecLibraries(again.modules), []);
    writeFileSync(spec, validSpec.replace('run: "cat"', 'run: "cat -"'));
    const fixed = traced(sandbox, ["validate", spec]);
    assert.equal(fixed.code, 0, fixed.stderr);
    assert.match(fixed.stdout, /verifier: command `cat -`/);
  });

  test("a spec for hook mode only is still refused by run, in the parser's words", async () => {
    const spec = await sandbox.spec(
      "name: hooks-only\ngoal: Only gates.\ngates:\n  - { id: tests, kind: tests-pass, run: 'true' }\n",
      join(sandbox.root, "hooks-only.yaml"),
    );
    const validated = traced(sandbox, ["validate", spec]);
    assert.equal(validated.code, 0, validated.stderr);
    assert.match(validated.stdout, /valid for hook mode only/);
    const run = traced(sandbox, ["run", spec]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /hooks-only\.yaml:1: maker: required to run a loop/);
  });

  test("a change to the parser's code (a file beside the schema) makes the spec read again", async () => {
    const spec = await sandbox.spec(validSpec, join(sandbox.root, "code.yaml"));
    const sources = { LOOPWRIGHT_FROM: "src" };
    assert.equal(traced(sandbox, ["validate", spec], sources).code, 0);
    assert.deepEqual(loadedSpecLibraries(traced(sandbox, ["validate", spec], sources).modules), []);
    // The command runs this checkout's sources: a new modification time stands for an edit or a rebuild.
    const schemaHelper = new URL("../src/core/duration.ts", import.meta.url).pathname;
    const { atime, mtime } = statSync(schemaHelper);
    utimesSync(schemaHelper, atime, new Date(mtime.getTime() + 1000));
    try {
      const again = traced(sandbox, ["validate", spec], sources);
      assert.equal(again.code, 0, again.stderr);
      assert.notDeepEqual(loadedSpecLibraries(again.modules), []);
    } finally {
      utimesSync(schemaHelper, atime, mtime);
    }
  });

  test("a home where the cache cannot be written changes nothing", async () => {
    const spec = await sandbox.spec(validSpec, join(sandbox.root, "no-cache.yaml"));
    const home = join(sandbox.root, "blocked-home");
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, "cache"), "a file where the cache folder would go\n");
    const env = { LOOPWRIGHT_HOME: home };
    const first = traced(sandbox, ["validate", spec], env);
    const second = traced(sandbox, ["validate", spec], env);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(second.stdout, first.stdout);
    assert.notDeepEqual(loadedSpecLibraries(second.modules), [], "without a cache the spec is parsed again");
  });
});

describe("the cache's answers", () => {
  let sandbox: Sandbox;
  before(async () => {
    sandbox = await createSandbox();
  });
  after(() => sandbox.cleanup());

  test("a cached spec equals the parser's, field for field", async () => {
    const spec = await sandbox.spec(
      `${validSpec}budget: { maxIterations: 2, wallClockPerIteration: 10m }\nscope: { allow: [src/**] }\n`,
      join(sandbox.root, "fields.yaml"),
    );
    const fresh = await loadSpecFile(spec);
    const first = await loadSpecFileCached(spec, sandbox.home);
    // The entry is written once the answer is given.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(readdirSync(join(sandbox.home, "cache", "specs")).length, 1);
    const second = await loadSpecFileCached(spec, sandbox.home);
    assert.deepEqual(first, fresh);
    assert.deepEqual(second, fresh);
    assert.equal(readdirSync(join(sandbox.home, "cache", "specs")).length, 1);
  });

  test("a scripted engine's script file is part of the entry: a changed script is read again", async () => {
    const folder = join(sandbox.root, "rehearsal");
    mkdirSync(folder, { recursive: true });
    const spec = join(folder, "loop.yaml");
    writeFileSync(
      spec,
      "name: rehearse\ngoal: Rehearse.\nmaker: { engine: scripted, script: ./turns.yaml }\n",
    );
    writeFileSync(join(folder, "turns.yaml"), "turns:\n  - { say: first }\n");
    const first = await loadSpecFileForAnyModeCached(spec, sandbox.home);
    assert.deepEqual(first.spec.maker, { engine: "scripted", turns: [{ say: "first" }] });
    writeFileSync(join(folder, "turns.yaml"), "turns:\n  - { say: second }\n");
    const second = await loadSpecFileForAnyModeCached(spec, sandbox.home);
    assert.deepEqual(second.spec.maker, { engine: "scripted", turns: [{ say: "second" }] });
    writeFileSync(join(folder, "turns.yaml"), "turns:\n  - { sleep: soon }\n");
    await assert.rejects(loadSpecFileForAnyModeCached(spec, sandbox.home), (error: unknown) => {
      assert.ok(error instanceof SpecError);
      assert.deepEqual(error.problems, [
        `${join(folder, "turns.yaml")}:2: turns[0].sleep: not a duration: "soon" (use 30s, 10m, 2h)`,
      ]);
      return true;
    });
  });

  test("a spec moved to another folder resolves its paths from there", async () => {
    const text = "name: moved\ngoal: Move.\nrepo: .\nmaker: { engine: command, run: ./agent.sh }\n";
    const here = join(sandbox.root, "here");
    const there = join(sandbox.root, "there");
    for (const folder of [here, there]) mkdirSync(folder, { recursive: true });
    writeFileSync(join(here, "loop.yaml"), text);
    const first = await loadSpecFileCached(join(here, "loop.yaml"), sandbox.home);
    assert.equal(first.spec.maker.run, join(here, "agent.sh"));
    writeFileSync(join(there, "loop.yaml"), text);
    const second = await loadSpecFileCached(join(there, "loop.yaml"), sandbox.home);
    assert.equal(second.spec.maker.run, join(there, "agent.sh"));
    assert.equal(second.repoPath, there);
  });

  test("the cache keeps the most recently written entries, and no temporary file a killed writer left", async () => {
    const home = join(sandbox.root, "many-home");
    const folder = join(sandbox.root, "many");
    mkdirSync(folder, { recursive: true });
    const entries = join(home, "cache", "specs");
    mkdirSync(entries, { recursive: true });
    const leftover = join(entries, "0123456789abcdef.json.4242.tmp");
    writeFileSync(leftover, "{");
    utimesSync(leftover, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    const count = maximumSpecCacheEntries + 5;
    for (let index = 0; index < count; index++) {
      const spec = join(folder, `spec-${index}.yaml`);
      writeFileSync(spec, validSpec.replace("name: cached", `name: many-${index}`));
      await loadSpecFileCached(spec, home);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const kept = readdirSync(entries);
    assert.equal(kept.length, maximumSpecCacheEntries);
    assert.ok(!existsSync(leftover), "a stale temporary file is removed");
    // The newest spec is still served from the cache: its entry names it.
    const newest = kept.map((name) => readFileSync(join(entries, name), "utf8"));
    assert.ok(newest.some((text) => text.includes(`many-${count - 1}`)));
    assert.ok(!newest.some((text) => text.includes('"name":"many-0"')), "the oldest entry is dropped");
  });

  test("the home, the cache and its entries are private to the user (an entry holds the spec's text)", async () => {
    const home = join(sandbox.root, "fresh-home");
    const spec = join(sandbox.root, "private.yaml");
    writeFileSync(spec, validSpec.replace("name: cached", "name: private"));
    await loadSpecFileCached(spec, home);
    await new Promise((resolve) => setImmediate(resolve));
    const entries = join(home, "cache", "specs");
    const mode = (path: string) => statSync(path).mode & 0o777;
    assert.equal(mode(home), 0o700);
    assert.equal(mode(join(home, "cache")), 0o700);
    assert.equal(mode(entries), 0o700);
    for (const name of readdirSync(entries)) assert.equal(mode(join(entries, name)), 0o600);
  });

  test("an entry without the shape this code writes is no entry: the spec is parsed again", async () => {
    const home = join(sandbox.root, "damaged-home");
    const spec = join(sandbox.root, "damaged.yaml");
    writeFileSync(spec, validSpec.replace("name: cached", "name: damaged"));
    const fresh = await loadSpecFileCached(spec, home);
    await new Promise((resolve) => setImmediate(resolve));
    const entries = join(home, "cache", "specs");
    const [name] = readdirSync(entries);
    const entry = JSON.parse(readFileSync(join(entries, name), "utf8"));
    delete entry.parsed.spec.gates;
    entry.parsed.spec.verifier = "cat";
    writeFileSync(join(entries, name), JSON.stringify(entry));
    assert.deepEqual(await loadSpecFileCached(spec, home), fresh);
  });
});
