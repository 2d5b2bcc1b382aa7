/**
 * `test-renamed-out`: a test file renamed or moved to a path its runner no longer discovers
 * (`test/add.test.js` → `test/add.test.js.bak`, `tests/test_x.py` → `tests/x_check.py`, Rust
 * `tests/it.rs` → `examples/it.rs`). Discovery is judged by the runners' default conventions, per
 * language; a rename that stays discoverable is not flagged. Pure.
 */

import picomatch from "picomatch";
import type { TamperFlag } from "../../core/tamper-flag.ts";
import type { ScreenFile } from "./lexed-diff.ts";

const javascript = "{js,cjs,mjs,jsx,ts,cts,mts,tsx}";

/** Default discovery conventions: who discovers, and the globs (matched with `dot: true`). */
const conventions: { runner: string; patterns: string[] }[] = [
  {
    runner: "JavaScript test runners (node:test, jest, vitest, mocha)",
    patterns: [
      `**/*.{test,spec}.${javascript}`,
      `**/*.test-d.${javascript}`,
      `**/__tests__/**/*.${javascript}`,
      `**/{test,tests}/**/*.${javascript}`,
      `**/{test,test-*,*_test,*-test}.${javascript}`,
    ],
  },
  {
    runner: "pytest and unittest",
    patterns: ["**/test*.py", "**/*_test.py", "**/conftest.py"],
  },
  {
    runner: "cargo test (tests/*.rs)",
    patterns: ["tests/*.rs", "tests/*/main.rs", "**/tests/*.rs", "**/tests/*/main.rs"],
  },
  { runner: "go test", patterns: ["**/*_test.go"] },
  { runner: "RSpec and Minitest", patterns: ["**/*_spec.rb", "**/*_test.rb", "**/test_*.rb"] },
  { runner: "prove", patterns: ["**/*.t"] },
  { runner: "ExUnit", patterns: ["**/*_test.exs"] },
  {
    runner: "JUnit (Maven and Gradle)",
    patterns: ["**/{Test*,*Test,*Tests,*IT,*TestCase}.{java,kt}"],
  },
];

const matchers = conventions.map((convention) => ({
  runner: convention.runner,
  matches: picomatch(convention.patterns, { dot: true }),
}));

/** The runner convention that discovers `path`, if any. */
export function discoveredBy(path: string): string | undefined {
  return matchers.find((matcher) => matcher.matches(path))?.runner;
}

/** One flag per renamed file that was discovered as a test and no longer is. */
export function screenRenamedTests(files: readonly ScreenFile[]): TamperFlag[] {
  const flags: TamperFlag[] = [];
  for (const file of files) {
    if (file.status !== "renamed" || file.oldPath === file.path) continue;
    const runner = discoveredBy(file.oldPath);
    if (!runner || discoveredBy(file.path)) continue;
    flags.push({
      kind: "test-renamed-out",
      file: file.path,
      detail: `test file ${file.oldPath} renamed to ${file.path}, where ${runner} no longer find it`,
    });
  }
  return flags;
}
