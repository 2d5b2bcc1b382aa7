/**
 * The spec parser's bundle (scripts/bundle-spec-parser.ts), which `importSpecParser` loads from the build:
 * a spec parsed through it gives the answers the modules give (a valid spec, every problem of an
 * invalid one) while loading neither yaml's nor zod's modules; a module changed since it was bundled, a
 * damaged manifest or a bundle that does not load leaves the modules to parse.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  appendFileSync,
  copyFileSync,
  cpSync,
  readFileSync,
  rmSync,
  symlinkSync,
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

  /** `validate` of `text` as a spec never seen (new path, new home): exit code, output, modules loaded. */
  const validate = (text: string, entry = join(pkg, "bin", "loopwright.js")) => {
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
      },
      encoding: "utf8",
    });
    const modules = readFileSync(trace, "utf8").split("\n");
    const output = `${run.stdout}${run.stderr}`.replaceAll(path, "SPEC");
    return {
      code: run.status,
      output,
      bundled: modules.some((url) => url.endsWith("/core/spec-file.bundle.js")),
      packages: modules.filter((url) => /\/node_modules\/(zod|yaml|croner)\//.test(url)).length,
    };
  };

  test("parses as the modules do, loading no yaml or zod module", () => {
    for (const text of [valid, invalid]) {
      const bundled = validate(text);
      const modules = validate(text, binary);
      assert.ok(bundled.bundled, bundled.output);
      assert.equal(bundled.packages, 0);
      assert.equal(modules.bundled, false);
      assert.ok(modules.packages > 50, `${modules.packages} package modules`);
      assert.equal(bundled.code, modules.code);
      assert.equal(bundled.output, modules.output);
    }
    assert.match(validate(invalid).output, /maker\.engine/);
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
        env: { ...sandbox.env, LOOPWRIGHT_MODULE_TRACE: trace, LOOPWRIGHT_FROM: "" },
        encoding: "utf8",
      },
    );
    const output = `${run.stdout}${run.stderr}`;
    assert.equal(run.status, 0, output);
    const modules = readFileSync(trace, "utf8").split("\n");
    assert.ok(
      modules.some((url) => url.endsWith("/core/spec-file.bundle.js")),
      "the bundle parsed no spec",
    );
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

  test("a module changed since it was bundled, a damaged manifest or bundle: the modules parse", () => {
    const expected = validate(invalid, binary).output;
    const spec = join(pkg, "src", "core", "spec.ts");
    const manifest = join(pkg, "src", "core", "spec-file.bundle.json");
    const bundle = join(pkg, "src", "core", "spec-file.bundle.js");
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
      writeFileSync(bundle, "export const parseSpecTextForAnyMode = ;\n");
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
