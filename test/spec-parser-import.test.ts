/**
 * The spec parser imported without zod's translated messages (src/core/spec-parser-import.ts): a spec
 * parsed from scratch loads zod's English messages and none of its other locales, and every answer (a
 * valid spec, each problem of an invalid one) is the one the parser gives with zod loaded whole.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { englishOnlyIndex } from "../src/core/zod-without-locales.ts";
import { binary, createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

const zodLocales = new URL("../node_modules/zod/v4/locales/index.js", import.meta.url);
const tracer = new URL("./support/module-trace.mjs", import.meta.url).pathname;

describe("zod's locale index as the parser reads it", () => {
  test("zod's own index is served as its English export alone", () => {
    assert.equal(
      englishOnlyIndex(readFileSync(zodLocales, "utf8")),
      'export { default as en } from "./en.js";\n',
    );
  });

  test("an index of another layout, or without English, is left as it is", () => {
    const english = 'export { default as en } from "./en.js";';
    assert.equal(englishOnlyIndex(`${english}\nexport * from "./all.js";\n`), undefined);
    assert.equal(englishOnlyIndex(`${english}\nexport const fr = {};\n`), undefined);
    assert.equal(englishOnlyIndex('export { default as fr } from "./fr.js";\n'), undefined);
    assert.equal(englishOnlyIndex(""), undefined);
  });
});

describe("a spec parsed from scratch", () => {
  let sandbox: Sandbox;
  before(async () => {
    sandbox = await createSandbox();
  });
  after(async () => {
    await sandbox.cleanup();
  });

  /** Runs `loopwright <args>` with the module tracer: its exit code, output and the modules it loaded. */
  function traced(args: string[]): { code: number | null; output: string; modules: string[] } {
    const trace = join(sandbox.root, `trace-${process.hrtime.bigint()}.txt`);
    const result = spawnSync(process.execPath, ["--import", tracer, binary, ...args], {
      cwd: sandbox.repo,
      env: { ...sandbox.env, LOOPWRIGHT_MODULE_TRACE: trace },
      encoding: "utf8",
    });
    const modules = existsSync(trace) ? readFileSync(trace, "utf8").split("\n").filter(Boolean) : [];
    return { code: result.status, output: result.stdout + result.stderr, modules };
  }

  test("loads zod's English messages and no other locale", () => {
    const path = join(sandbox.root, "fresh.yaml");
    writeFileSync(
      path,
      `name: fresh
goal: Be parsed from scratch.
repo: ./repo
maker: { engine: command, run: "true" }
verifier: { engine: command, run: "cat" }
gates:
  - { id: tests, kind: tests-pass, run: "true" }
`,
    );
    const run = traced(["validate", path]);
    assert.equal(run.code, 0, run.output);
    const locales = run.modules
      .filter((url) => url.includes("/zod/v4/locales/"))
      .map((url) => url.slice(url.lastIndexOf("/") + 1));
    assert.ok(
      run.modules.some((url) => url.includes("/node_modules/zod/")),
      "zod was not loaded",
    );
    assert.ok(locales.includes("en.js"), "zod's English messages were not loaded");
    assert.deepEqual(
      locales.filter((name) => name !== "en.js" && name !== "index.js"),
      [],
    );
  });

  test("gives every problem of an invalid spec as the parser with zod loaded whole does", () => {
    const path = join(sandbox.root, "broken.yaml");
    writeFileSync(
      path,
      `name: Broken Name!
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
`,
    );
    const script = (first: string) => `
      ${first}
      const { loadSpecFileCached } = await import(${JSON.stringify(new URL("../src/core/spec-cache.ts", import.meta.url).href)});
      let problems;
      try { await loadSpecFileCached(${JSON.stringify(path)}, ${JSON.stringify(join(sandbox.root, "home-parse"))}); } catch (error) { problems = error.problems; }
      const { z } = await import("zod");
      process.stdout.write(JSON.stringify({ locales: Object.keys(z.locales), problems }));
    `;
    const answer = (first: string) => {
      const result = spawnSync(process.execPath, ["--input-type=module", "-e", script(first)], {
        cwd: new URL("..", import.meta.url).pathname,
        encoding: "utf8",
      });
      assert.equal(result.status, 0, result.stderr);
      return JSON.parse(result.stdout) as { locales: string[]; problems: string[] };
    };
    const light = answer("");
    const whole = answer('await import("zod");');
    assert.deepEqual(light.locales, ["en"]);
    assert.ok(whole.locales.length > 40, `zod loaded whole has ${whole.locales.length} locales`);
    assert.ok(light.problems.length >= 10, light.problems.join("\n"));
    assert.deepEqual(light.problems, whole.problems);
  });
});
