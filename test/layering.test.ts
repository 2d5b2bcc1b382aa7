/**
 * Imports point down only: every import of every `src/**` file, as the TypeScript compiler resolves
 * it (static, type-only, re-exports and dynamic `import("...")`), against the layer order in
 * `src/layers.ts`. A failure names the importing file, the import as written and the file it reaches.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { type Layer, type LayerException, layerExceptions, layers } from "../src/layers.ts";

const root = join(import.meta.dirname, "..");

interface Import {
  /** The importing file, `src/...`. */
  from: string;
  /** The specifier as written. */
  specifier: string;
  /** The file it resolves to, `src/...` (imports of packages are not listed). */
  to: string;
}

/**
 * The source files and their imports, from the compiler's `--explainFiles` account of why each file
 * is part of the program (`Imported via "../core/spec.ts" from file 'src/loop/state.ts'`).
 */
function compilerImports(): { files: Set<string>; imports: Import[] } {
  const tsc = join(root, "node_modules", ".bin", "tsc");
  const run = spawnSync(tsc, ["--noEmit", "--explainFiles", "-p", "tsconfig.build.json"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  assert.ok(run.stdout, `tsc --explainFiles printed nothing: ${run.error ?? run.stderr}`);
  const files = new Set<string>();
  const imports: Import[] = [];
  let current: string | undefined;
  for (const line of run.stdout.split("\n")) {
    if (/^\S/.test(line)) {
      current = line.trim();
      if (current.startsWith("src/")) files.add(current);
      continue;
    }
    const via = /^\s+Imported via (["'])(.+?)\1 from file '([^']+)'/.exec(line);
    if (via && current?.startsWith("src/")) imports.push({ from: via[3], specifier: via[2], to: current });
  }
  return { files, imports };
}

/** `src/loop/runner.ts` → `loop`; `src/errors.ts` → `errors.ts`. */
function areaOf(file: string): string {
  return file.split("/")[1];
}

/** Every import that points up the order, or into or out of an area the order does not place. */
function layerViolations(
  imports: readonly Import[],
  order: readonly Layer[],
  exceptions: readonly LayerException[],
): string[] {
  const level = new Map(order.flatMap((layer, index) => layer.areas.map((area) => [area, index] as const)));
  const problems: string[] = [];
  for (const { from, specifier, to } of imports) {
    const source = level.get(areaOf(from));
    const target = level.get(areaOf(to));
    const line = `${from} imports "${specifier}" (${to})`;
    if (source === undefined || target === undefined) {
      const unplaced = source === undefined ? areaOf(from) : areaOf(to);
      problems.push(`${line}: src/${unplaced} has no layer in src/layers.ts`);
    } else if (target > source && !exceptions.some((e) => e.from === from && e.to === to)) {
      problems.push(
        `${line}: ${order[source].name} must not import from ${order[target].name}, a layer above it`,
      );
    }
  }
  return problems;
}

describe("layering", () => {
  const { files, imports } = compilerImports();

  test("the compiler's account covers every source file", () => {
    const onDisk = readdirSync(join(root, "src"), { recursive: true, encoding: "utf8" })
      .filter((name) => name.endsWith(".ts"))
      .map((name) => `src/${name.split("\\").join("/")}`);
    assert.deepEqual([...files].filter((file) => file.endsWith(".ts")).sort(), onDisk.sort());
    assert.ok(imports.length > 500, `only ${imports.length} imports read`);
    // Dynamic imports are read too (hook mode loads the spec reader lazily).
    assert.ok(imports.some((i) => i.from === "src/hooks/hook-spec.ts" && i.to === "src/core/spec-file.ts"));
  });

  test("no import points up the layer order", () => {
    assert.deepEqual(layerViolations(imports, layers, layerExceptions), []);
  });

  test("every exception is still needed and says why", () => {
    for (const exception of layerExceptions) {
      assert.ok(exception.reason.trim(), `${exception.from} → ${exception.to} gives no reason`);
      const used = imports.some((i) => i.from === exception.from && i.to === exception.to);
      assert.ok(used, `${exception.from} no longer imports ${exception.to}: drop the exception`);
    }
  });

  test("an upward import and an unplaced folder are named", () => {
    const upward = { from: "src/core/spec.ts", specifier: "../loop/state.ts", to: "src/loop/state.ts" };
    const unplaced = { from: "src/nowhere/x.ts", specifier: "../core/spec.ts", to: "src/core/spec.ts" };
    assert.deepEqual(layerViolations([upward, unplaced], layers, []), [
      'src/core/spec.ts imports "../loop/state.ts" (src/loop/state.ts): ground must not import from loop, a layer above it',
      'src/nowhere/x.ts imports "../core/spec.ts" (src/core/spec.ts): src/nowhere has no layer in src/layers.ts',
    ]);
    const excused = [{ from: upward.from, to: upward.to, reason: "a test" }];
    assert.deepEqual(layerViolations([upward], layers, excused), []);
  });
});
