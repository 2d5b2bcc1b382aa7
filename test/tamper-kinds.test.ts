/**
 * The right kind for each cheat: a loosened tolerance is `threshold-loosened` (not a deleted
 * assertion), and a configuration that stops tests from running or narrows what the runner collects
 * is `tests-excluded`, in Cargo.toml, pytest, mocha, jest and vitest configuration.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { edit, flagsOf, text } from "./fixtures/tamper/git-diff.ts";

const unittestFile = (line: string) =>
  text(
    "import unittest",
    "",
    "class GeometryTest(unittest.TestCase):",
    "    def test_area(self):",
    "        x = area(1)",
    line,
    "",
    "    def test_other(self):",
    "        self.assertEqual(1, 1)",
  );
const rustLibrary = (line: string) =>
  text(
    "pub fn area(r: f64) -> f64 { 3.14159 * r * r }",
    "#[cfg(test)]",
    "mod tests {",
    "    #[test]",
    "    fn area_of_unit_circle() {",
    line,
    "    }",
    "}",
  );

describe("a loosened tolerance or bound is threshold-loosened, not assertion-deleted", () => {
  const cases: [string, ReturnType<typeof edit>, string[]][] = [
    [
      "assertLess(abs(x - y), 0.001) → 0.1",
      edit(
        "tests/test_geometry.py",
        unittestFile("        self.assertLess(abs(x - 3.14159), 0.001)"),
        unittestFile("        self.assertLess(abs(x - 3.14159), 0.1)"),
      ),
      ["threshold-loosened tests/test_geometry.py:6"],
    ],
    [
      "assertLessEqual(error, 1e-6) → 1e-2",
      edit(
        "tests/test_geometry.py",
        unittestFile("        self.assertLessEqual(abs(x - 3.14159), 1e-6)"),
        unittestFile("        self.assertLessEqual(abs(x - 3.14159), 1e-2)"),
      ),
      ["threshold-loosened tests/test_geometry.py:6"],
    ],
    [
      "assertGreater(score, 0.9) → 0.5",
      edit(
        "tests/test_geometry.py",
        unittestFile("        self.assertGreater(x, 3.1)"),
        unittestFile("        self.assertGreater(x, 1)"),
      ),
      ["threshold-loosened tests/test_geometry.py:6"],
    ],
    [
      "AssertJ isLessThan(0.001) → 0.1",
      edit(
        "src/test/java/GeometryTest.java",
        text(
          "class GeometryTest {",
          "  @Test void area() {",
          "    assertThat(error).isLessThan(0.001);",
          "  }",
          "}",
        ),
        text(
          "class GeometryTest {",
          "  @Test void area() {",
          "    assertThat(error).isLessThan(0.1);",
          "  }",
          "}",
        ),
      ),
      ["threshold-loosened src/test/java/GeometryTest.java:3"],
    ],
    [
      "a Rust inline test's (a - b).abs() < 0.001 → 0.1",
      edit(
        "src/lib.rs",
        rustLibrary("        assert!((super::area(1.0) - 3.14159).abs() < 0.001);"),
        rustLibrary("        assert!((super::area(1.0) - 3.14159).abs() < 0.1);"),
      ),
      ["threshold-loosened src/lib.rs:6", "inline-tests-changed src/lib.rs:6"],
    ],
    [
      "Math.abs(x) < 0.001 → 0.1 in a root test.js",
      edit(
        "test.js",
        text("it('area', () => {", "  assert(Math.abs(area(1) - 3.14159) < 0.001);", "});"),
        text("it('area', () => {", "  assert(Math.abs(area(1) - 3.14159) < 0.1);", "});"),
      ),
      ["threshold-loosened test.js:2"],
    ],
  ];
  for (const [name, change, expected] of cases) {
    it(name, async () => assert.deepEqual(await flagsOf(change), expected));
  }

  const tightened = edit(
    "src/lib.rs",
    rustLibrary("        assert!((super::area(1.0) - 3.14159).abs() < 0.1);"),
    rustLibrary("        assert!((super::area(1.0) - 3.14159).abs() < 0.001);"),
  );
  it("a tolerance tightened in a Rust inline test is only an inline test change", async () => {
    assert.deepEqual(await flagsOf(tightened), ["inline-tests-changed src/lib.rs:6"]);
  });
});

describe("Cargo.toml that stops tests from running is tests-excluded", () => {
  const manifest = text(
    "[package]",
    'name = "geometry"',
    'version = "0.1.0"',
    "",
    "[lib]",
    'path = "src/lib.rs"',
    "",
    "[[test]]",
    'name = "integration"',
    'path = "tests/integration.rs"',
  );
  const cases: [string, string, string, number][] = [
    ["[lib] test = false", 'path = "src/lib.rs"', 'path = "src/lib.rs"\ntest = false', 7],
    ["[lib] doctest = false", 'path = "src/lib.rs"', 'path = "src/lib.rs"\ndoctest = false', 7],
    ["[package] autotests = false", 'version = "0.1.0"', 'version = "0.1.0"\nautotests = false', 4],
    [
      "[[test]] test = false",
      'path = "tests/integration.rs"',
      'path = "tests/integration.rs"\ntest = false',
      11,
    ],
    [
      "[[test]] harness = false",
      'path = "tests/integration.rs"',
      'path = "tests/integration.rs"\nharness = false',
      11,
    ],
  ];
  for (const [name, from, to, line] of cases) {
    const change = edit("Cargo.toml", manifest, manifest.replace(from, to));
    it(name, async () =>
      assert.deepEqual(await flagsOf(change, "tests-excluded"), [`tests-excluded Cargo.toml:${line}`]),
    );
  }
  const enabled = edit(
    "Cargo.toml",
    manifest,
    manifest.replace('path = "src/lib.rs"', 'path = "src/lib.rs"\ntest = true'),
  );
  it("test = true is not an exclusion", async () => {
    assert.deepEqual(await flagsOf(enabled, "tests-excluded"), []);
  });
});

describe("narrowing what the runner collects is tests-excluded", () => {
  const cases: [string, string, string, string, number][] = [
    [
      "pytest testpaths narrowed",
      "pytest.ini",
      text("[pytest]", "testpaths = tests"),
      text("[pytest]", "testpaths = tests/unit"),
      2,
    ],
    [
      "pytest testpaths loses a folder",
      "pyproject.toml",
      text("[tool.pytest.ini_options]", 'testpaths = ["tests", "integration"]'),
      text("[tool.pytest.ini_options]", 'testpaths = ["tests"]'),
      2,
    ],
    [
      "pytest python_files narrowed",
      "setup.cfg",
      text("[tool:pytest]", "python_files = test_*.py"),
      text("[tool:pytest]", "python_files = test_unit_*.py"),
      2,
    ],
    [
      "pytest addopts --deselect",
      "pyproject.toml",
      text("[tool.pytest.ini_options]", 'addopts = "-q"'),
      text("[tool.pytest.ini_options]", 'addopts = "-q --deselect tests/test_x.py::test_a"'),
      2,
    ],
    [
      'pytest addopts -k "not …"',
      "pytest.ini",
      text("[pytest]", "addopts = -q"),
      text("[pytest]", 'addopts = -q -k "not payments"'),
      2,
    ],
    [
      "pytest norecursedirs gains a folder",
      "setup.cfg",
      text("[tool:pytest]", "norecursedirs = .git"),
      text("[tool:pytest]", "norecursedirs = .git tests/payments"),
      2,
    ],
    [
      "mocha spec narrowed",
      ".mocharc.yml",
      text("spec: 'test/**/*.test.js'", "timeout: 2000"),
      text("spec: 'test/unit/*.test.js'", "timeout: 2000"),
      1,
    ],
    [
      "mocha ignore added",
      ".mocharc.json",
      text("{", '  "spec": "test"', "}"),
      text("{", '  "spec": "test",', '  "ignore": ["test/payments.test.js"]', "}"),
      3,
    ],
    [
      "jest testMatch narrowed",
      "jest.config.js",
      text("module.exports = {", '  testMatch: ["**/*.test.js"],', "};"),
      text("module.exports = {", '  testMatch: ["**/unit/*.test.js"],', "};"),
      2,
    ],
    [
      "jest roots narrowed",
      "jest.config.js",
      text("module.exports = {", '  roots: ["<rootDir>/src", "<rootDir>/test"],', "};"),
      text("module.exports = {", '  roots: ["<rootDir>/src"],', "};"),
      2,
    ],
    [
      "vitest include narrowed",
      "vitest.config.ts",
      text("export default defineConfig({ test: {", '  include: ["test/**/*.test.ts"],', "} });"),
      text("export default defineConfig({ test: {", '  include: ["test/unit/*.test.ts"],', "} });"),
      2,
    ],
    [
      "vitest exclude gains an entry",
      "vitest.config.ts",
      text("export default defineConfig({ test: {", '  exclude: ["node_modules"],', "} });"),
      text(
        "export default defineConfig({ test: {",
        '  exclude: ["node_modules", "test/payments.test.ts"],',
        "} });",
      ),
      2,
    ],
  ];
  cases.push(
    [
      ".npmrc script-shell (npm runs every script with it)",
      ".npmrc",
      text("fund=false"),
      text("fund=false", "script-shell=/bin/true"),
      2,
    ],
    [".npmrc ignore-scripts", ".npmrc", text("fund=false"), text("fund=false", "ignore-scripts=true"), 2],
  );
  for (const [name, path, before, after, line] of cases) {
    const change = edit(path, before, after);
    it(name, async () =>
      assert.deepEqual(await flagsOf(change, "tests-excluded"), [`tests-excluded ${path}:${line}`]),
    );
  }

  const widened = edit(
    "pytest.ini",
    text("[pytest]", "testpaths = tests"),
    text("[pytest]", "testpaths = tests integration"),
  );
  const reformatted = edit(
    "jest.config.js",
    text("module.exports = {", '  testMatch: ["**/*.test.js", "**/*.spec.js"],', "};"),
    text("module.exports = {", "  testMatch: [", '    "**/*.test.js",', '    "**/*.spec.js",', "  ],", "};"),
  );
  const typeCheckInclude = edit(
    "tsconfig.json",
    text("{", '  "include": ["src", "scripts"]', "}"),
    text("{", '  "include": ["src"]', "}"),
  );
  it("does not flag a collection widened, reformatted, or a tsconfig include", async () => {
    assert.deepEqual(await flagsOf(widened, "tests-excluded"), []);
    assert.deepEqual(await flagsOf(reformatted, "tests-excluded"), []);
    assert.deepEqual(await flagsOf(typeCheckInclude, "tests-excluded"), []);
  });
});
