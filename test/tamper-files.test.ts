import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { classifyTamperFiles } from "../src/verify/tamper/classify-files.ts";
import { screenDiff } from "../src/verify/tamper/screen-diff.ts";
import { compareTestCounts } from "../src/verify/tamper/test-counts.ts";
import { change, edit, flagsOf, text } from "./fixtures/tamper/git-diff.ts";

describe("classifyTamperFiles", () => {
  const expectations: [string, string][] = [
    // Tests, by language.
    ["src/math.test.ts", "tests"],
    ["src/components/Button.spec.jsx", "tests"],
    ["src/__tests__/math.js", "tests"],
    ["test/math.js", "tests"],
    ["packages/core/tests/helpers.ts", "tests"],
    ["src/__snapshots__/math.test.ts.snap", "tests"],
    ["test_math.py", "tests"],
    ["app/math_test.py", "tests"],
    ["app/conftest.py", "tests"],
    ["math_test.go", "tests"],
    ["internal/parse/testdata/input.txt", "tests"],
    ["tests/integration.rs", "tests"],
    ["src/test/java/com/acme/MathTest.java", "tests"],
    ["core/src/main/java/com/acme/MathTests.java", "tests"],
    ["spec/models/user_spec.rb", "tests"],
    ["lib/math_test.rb", "tests"],
    ["test/math_test.exs", "tests"],
    ["test/test_helper.exs", "tests"],
    // Layouts of real projects named by convention rather than by folder.
    ["tests.js", "tests"],
    ["test.js", "tests"],
    ["test.mjs", "tests"],
    ["spec.js", "tests"],
    ["packages/core/test.ts", "tests"],
    ["lib/foo_spec.js", "tests"],
    ["lib/foo_test.js", "tests"],
    ["polls/tests.py", "tests"],
    ["test.py", "tests"],
    ["app/tests_models.py", "tests"],
    ["t/basic.t", "tests"],
    ["lib/t/parse.t", "tests"],
    ["xt/author/pod.t", "tests"],
    ["index.test-d.ts", "tests"],
    ["types/index.test-d.tsx", "tests"],
    ["src/tests.rs", "tests"],
    // Configurations.
    ["jest.config.ts", "test-config"],
    ["packages/web/vitest.config.mts", "test-config"],
    ["playwright.config.ts", "test-config"],
    [".mocharc.yml", "test-config"],
    ["karma.conf.js", "test-config"],
    ["pytest.ini", "test-config"],
    ["tox.ini", "test-config"],
    ["setup.cfg", "test-config"],
    ["pyproject.toml", "test-config"],
    [".nycrc.json", "coverage-config"],
    ["codecov.yml", "coverage-config"],
    [".coveragerc", "coverage-config"],
    ["jacoco.gradle", "coverage-config"],
    [".eslintrc.cjs", "lint-config"],
    ["eslint.config.mjs", "lint-config"],
    ["biome.jsonc", "lint-config"],
    [".prettierrc", "lint-config"],
    ["ruff.toml", "lint-config"],
    [".rubocop.yml", "lint-config"],
    [".golangci.yml", "lint-config"],
    ["clippy.toml", "lint-config"],
    ["rustfmt.toml", "lint-config"],
    ["tsconfig.build.json", "type-check-config"],
    ["Makefile", "build-config"],
    ["build.gradle.kts", "build-config"],
    ["pom.xml", "build-config"],
    ["webpack.config.js", "build-config"],
    ["vite.config.ts", "build-config"],
    ["rollup.config.mjs", "build-config"],
    ["babel.config.json", "build-config"],
    // Manifests and lockfiles.
    ["package.json", "manifest"],
    ["packages/web/package.json", "manifest"],
    ["Cargo.toml", "manifest"],
    ["go.mod", "manifest"],
    ["requirements-dev.txt", "manifest"],
    ["Pipfile", "manifest"],
    ["Gemfile", "manifest"],
    ["mix.exs", "manifest"],
    ["composer.json", "manifest"],
    ["package-lock.json", "lockfile"],
    ["pnpm-lock.yaml", "lockfile"],
    ["yarn.lock", "lockfile"],
    ["Cargo.lock", "lockfile"],
    ["go.sum", "lockfile"],
    ["poetry.lock", "lockfile"],
    ["uv.lock", "lockfile"],
    ["Pipfile.lock", "lockfile"],
    ["Gemfile.lock", "lockfile"],
    ["mix.lock", "lockfile"],
    ["composer.lock", "lockfile"],
    // CI and hooks.
    [".github/workflows/ci.yml", "ci"],
    [".gitlab-ci.yml", "ci"],
    [".circleci/config.yml", "ci"],
    ["Jenkinsfile", "ci"],
    ["azure-pipelines.yml", "ci"],
    [".buildkite/pipeline.yml", "ci"],
    [".husky/pre-commit", "git-hooks"],
    [".githooks/pre-push", "git-hooks"],
    [".pre-commit-config.yaml", "git-hooks"],
    ["lefthook.yml", "git-hooks"],
  ];
  for (const [file, category] of expectations) {
    it(`puts ${file} in ${category}`, () => {
      assert.deepEqual(
        classifyTamperFiles([file]).map((found) => found.category),
        [category],
      );
    });
  }

  it("leaves ordinary source files and documents out", () => {
    const files = [
      "src/math.ts",
      "src/latest.ts",
      "app/contest.py",
      "attestation.go",
      "README.md",
      "docs/testing.md",
      "src/lib.rs",
      "src/testing.ts",
      "lib/attest.js",
      "src/contest.py",
      "src/latest_spec_version.md",
      "lib/protest.rb",
      "src/format.tsx",
    ];
    assert.deepEqual(classifyTamperFiles(files), []);
  });

  it("adds scope.protect, names the reason, and keeps the order given, each file once", () => {
    const found = classifyTamperFiles(
      ["src/billing/rates.ts", "src/math.ts", "package.json", "src/billing/rates.ts"],
      ["src/billing/**", "package.json"],
    );
    assert.deepEqual(found, [
      { file: "src/billing/rates.ts", category: "protected", reason: "scope.protect: src/billing/**" },
      {
        file: "package.json",
        category: "manifest",
        reason: "package manifest (also scope.protect: package.json)",
      },
    ]);
  });
});

describe("compareTestCounts", () => {
  it("flags fewer tests executed than the baseline", () => {
    const flag = compareTestCounts(120, 117);
    assert.equal(flag?.kind, "fewer-tests-executed");
    assert.match(flag?.detail ?? "", /117 tests executed, 3 fewer than the 120 of the baseline/);
  });

  it("does not flag the same number, more tests, or an unknown count", () => {
    assert.equal(compareTestCounts(120, 120), undefined);
    assert.equal(compareTestCounts(120, 130), undefined);
    assert.equal(compareTestCounts(undefined, 3), undefined);
    assert.equal(compareTestCounts(3, undefined), undefined);
  });
});

describe("screenDiff beyond file names", () => {
  const library = text(
    "pub fn add(a: i32, b: i32) -> i32 {",
    "    a + b",
    "}",
    "",
    "pub fn sub(a: i32, b: i32) -> i32 {",
    "    a - b",
    "}",
    "",
    "pub fn mul(a: i32, b: i32) -> i32 {",
    "    a * b",
    "}",
    "",
    "#[cfg(test)]",
    "mod tests {",
    "    use super::*;",
    "",
    "    #[test]",
    "    fn adds() {",
    "        let total = add(1, 2);",
    "        assert!(total > 0);",
    "    }",
    "}",
  );

  const inTests = edit(
    "src/lib.rs",
    library,
    library.replace("let total = add(1, 2);", "let total = add(2, 2);"),
  );
  it("flags test code changed inside a Rust #[cfg(test)] module", async () => {
    assert.deepEqual(await flagsOf(inTests), ["inline-tests-changed src/lib.rs:19"]);
  });

  const inLibrary = edit("src/lib.rs", library, library.replace("    a + b", "    a.wrapping_add(b)"));
  it("does not flag a change to the library code of the same file", async () => {
    assert.deepEqual(await flagsOf(inLibrary), []);
  });

  const assertionInTests = edit("src/lib.rs", library, library.replace("        assert!(total > 0);\n", ""));
  it("flags an assertion deleted from a Rust #[cfg(test)] module", async () => {
    assert.deepEqual(await flagsOf(assertionInTests), [
      "assertion-deleted src/lib.rs:20",
      "inline-tests-changed src/lib.rs:20",
    ]);
  });

  const invariant = text("def total(items):", "    assert items is not None", "    return sum(items)");
  const invariantRemoved = edit(
    "app/billing.py",
    invariant,
    invariant.replace("    assert items is not None\n", ""),
  );
  it("does not flag an assert removed from ordinary code", async () => {
    assert.deepEqual(await flagsOf(invariantRemoved), []);
  });

  const limits = edit(
    "config/limits.yml",
    text("limits:", "  request_timeout: 5", "  max_warnings: 0"),
    text("limits:", "  request_timeout: 60", "  max_warnings: 0"),
  );
  it("screens files of scope.protect like configuration", async () => {
    assert.deepEqual(await flagsOf(limits), []);
    assert.deepEqual(await flagsOf(limits, undefined, { protect: ["config/**"] }), [
      "threshold-loosened config/limits.yml:2",
    ]);
  });

  const many = change(
    {
      "test/many.test.ts": text(
        ...Array.from({ length: 30 }, (_, index) => `test("case ${index}", () => {});`),
      ),
    },
    { "test/many.test.ts": null },
  );
  it("caps the flags of one kind in one file and says how many it left out", async () => {
    const flags = await many.flags({ maximumFlagsPerKind: 5 });
    assert.equal(flags.length, 6);
    assert.deepEqual(
      flags.slice(0, 5).map((flag) => flag.line),
      [1, 2, 3, 4, 5],
    );
    assert.equal(flags[5].kind, "test-deleted");
    assert.match(flags[5].detail, /^25 more test-deleted flags/);
  });

  it("returns nothing for an empty diff or text that is not a diff", () => {
    assert.deepEqual(screenDiff(""), []);
    assert.deepEqual(screenDiff("not a diff\n@@ nonsense\n+it.skip(\n"), []);
  });
});

describe("classifyTamperFiles with the paths the spec's commands name", () => {
  const named = [
    {
      pattern: "test/run.js",
      category: "gate-script",
      reason: "gate tests runs this script (`node test/run.js`)",
    },
    {
      pattern: "t/basic.t",
      category: "gate-script",
      reason: "gate tests runs this script (`perl t/basic.t`)",
    },
    { pattern: "scripts/test-all", category: "gate-script", reason: "gate tests runs this script" },
    { pattern: "checks", category: "tests", reason: "test file named by gate tests (`mocha checks`)" },
    { pattern: "ci/jest.js", category: "test-config", reason: "configuration named by gate tests" },
  ] as const;
  const cases: [string, string | undefined][] = [
    ["test/run.js", "gate-script"],
    ["t/basic.t", "tests"],
    ["scripts/test-all", "gate-script"],
    ["checks/add.js", "tests"],
    ["checks/deep/mul.js", "tests"],
    ["checksum.js", undefined],
    ["ci/jest.js", "test-config"],
    ["src/calc.js", undefined],
  ];
  for (const [file, category] of cases) {
    it(`puts ${file} in ${category ?? "nothing"}`, () => {
      assert.deepEqual(
        classifyTamperFiles([file], [], named).map((found) => found.category),
        category ? [category] : [],
      );
    });
  }
});
