import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { change, edit, flagsOf, text } from "./fixtures/tamper/git-diff.ts";
import { replaced } from "./support/replaced.ts";

const jestConfig = text(
  "module.exports = {",
  '  testEnvironment: "node",',
  "  testTimeout: 5000,",
  "  coverageThreshold: {",
  "    global: { branches: 80, functions: 90, lines: 90 },",
  "  },",
  '  testPathIgnorePatterns: ["/node_modules/"],',
  "};",
);

describe("threshold-loosened", () => {
  const cases: { name: string; path: string; before: string; from: string; to: string; line: number }[] = [
    {
      name: "jest coverage branches 80 → 60",
      path: "jest.config.js",
      before: jestConfig,
      from: "branches: 80",
      to: "branches: 60",
      line: 5,
    },
    {
      name: "jest testTimeout raised tenfold",
      path: "jest.config.js",
      before: jestConfig,
      from: "testTimeout: 5000",
      to: "testTimeout: 50000",
      line: 3,
    },
    {
      name: "pytest --cov-fail-under lowered",
      path: "pyproject.toml",
      before: text(
        "[tool.pytest.ini_options]",
        'addopts = "-q --cov=app --cov-fail-under=90"',
        'testpaths = ["tests"]',
      ),
      from: "--cov-fail-under=90",
      to: "--cov-fail-under=70",
      line: 2,
    },
    {
      name: "coverage.py fail_under lowered",
      path: ".coveragerc",
      before: text("[run]", "branch = True", "", "[report]", "fail_under = 95", "show_missing = True"),
      from: "fail_under = 95",
      to: "fail_under = 50",
      line: 5,
    },
    {
      name: "vitest coverage thresholds lowered",
      path: "vitest.config.ts",
      before: text(
        "export default defineConfig({",
        "  test: {",
        "    coverage: { thresholds: { lines: 85, statements: 85 } },",
        "  },",
        "});",
      ),
      from: "lines: 85",
      to: "lines: 40",
      line: 3,
    },
    {
      name: "jacoco minimum lowered",
      path: "pom.xml",
      before: text(
        "<limit>",
        "  <counter>LINE</counter>",
        "  <value>COVEREDRATIO</value>",
        "  <minimum>0.80</minimum>",
        "</limit>",
      ),
      from: "<minimum>0.80</minimum>",
      to: "<minimum>0.50</minimum>",
      line: 4,
    },
    {
      name: "eslint --max-warnings raised",
      path: "package.json",
      before: text(
        "{",
        '  "scripts": {',
        '    "lint": "eslint . --max-warnings 0",',
        '    "test": "node --test"',
        "  }",
        "}",
      ),
      from: "--max-warnings 0",
      to: "--max-warnings 50",
      line: 3,
    },
    {
      name: "toBeCloseTo precision lowered",
      path: "test/geometry.test.ts",
      before: text('test("area", () => {', "  expect(area(1)).toBeCloseTo(3.14159, 5);", "});"),
      from: "toBeCloseTo(3.14159, 5)",
      to: "toBeCloseTo(3.14159, 1)",
      line: 2,
    },
    {
      name: "pytest.approx tolerance raised",
      path: "tests/test_geometry.py",
      before: text("def test_area():", "    assert area(1) == pytest.approx(3.14159, abs=1e-6)"),
      from: "abs=1e-6",
      to: "abs=0.5",
      line: 2,
    },
    {
      name: "assertAlmostEqual delta raised",
      path: "tests/test_geometry.py",
      before: text(
        "class T(unittest.TestCase):",
        "    def test_area(self):",
        "        self.assertAlmostEqual(area(1), 3.14159, delta=0.0001)",
      ),
      from: "delta=0.0001",
      to: "delta=1",
      line: 3,
    },
    {
      name: "testify InDelta raised",
      path: "geometry_test.go",
      before: text("func TestArea(t *testing.T) {", "\tassert.InDelta(t, 3.14159, Area(1), 0.0001)", "}"),
      from: "0.0001)",
      to: "0.5)",
      line: 2,
    },
    {
      name: "a JUnit assertEquals delta raised",
      path: "src/test/java/GeometryTest.java",
      before: text(
        "class GeometryTest {",
        "    @Test",
        "    void area() {",
        "        assertEquals(3.14159, area(1), 0.0001);",
        "    }",
        "}",
      ),
      from: "0.0001);",
      to: "0.5);",
      line: 4,
    },
    {
      name: "a Minitest assert_in_delta raised",
      path: "test/geometry_test.rb",
      before: text("def test_area", "  assert_in_delta 3.14159, area(1), 0.0001", "end"),
      from: "0.0001",
      to: "0.5",
      line: 2,
    },
    {
      name: "an RSpec be_within raised",
      path: "spec/geometry_spec.rb",
      before: text('it "computes the area" do', "  expect(area(1)).to be_within(0.0001).of(3.14159)", "end"),
      from: "be_within(0.0001)",
      to: "be_within(0.5)",
      line: 2,
    },
    {
      name: "an ExUnit assert_in_delta raised",
      path: "test/geometry_test.exs",
      before: text('test "area" do', "  assert_in_delta(Geometry.area(1), 3.14159, 0.0001)", "end"),
      from: "0.0001)",
      to: "0.5)",
      line: 2,
    },
    {
      name: "a Rust epsilon constant raised",
      path: "tests/geometry.rs",
      before: text(
        "const EPSILON: f64 = 1e-9;",
        "",
        "#[test]",
        "fn area() {",
        "    assert!((area(1.0) - PI).abs() < EPSILON);",
        "}",
      ),
      from: "1e-9",
      to: "1e-2",
      line: 1,
    },
    {
      name: "a Python tolerance in a comparison raised",
      path: "tests/test_geometry.py",
      before: text("def test_area():", "    assert abs(area(1) - math.pi) < 1e-9"),
      from: "< 1e-9",
      to: "< 0.1",
      line: 2,
    },
    {
      name: "a bound in an assertion raised",
      path: "tests/test_speed.py",
      before: text("def test_fast():", "    assert elapsed() < 0.5"),
      from: "< 0.5",
      to: "< 5",
      line: 2,
    },
    {
      name: "toBeLessThan bound raised",
      path: "test/speed.test.ts",
      before: text('test("fast", () => {', "  expect(elapsed()).toBeLessThan(100);", "});"),
      from: "toBeLessThan(100)",
      to: "toBeLessThan(1000)",
      line: 2,
    },
    {
      name: "CI job timeout raised",
      path: ".github/workflows/ci.yml",
      before: text(
        "jobs:",
        "  test:",
        "    runs-on: ubuntu-latest",
        "    timeout-minutes: 10",
        "    steps:",
        "      - run: npm test",
      ),
      from: "timeout-minutes: 10",
      to: "timeout-minutes: 120",
      line: 4,
    },
    {
      name: "go test -timeout raised across units",
      path: "Makefile",
      before: text("test:", "\tgo test -timeout 30s ./..."),
      from: "-timeout 30s",
      to: "-timeout 10m -count=1",
      line: 2,
    },
  ];
  for (const example of cases) {
    const change = edit(example.path, example.before, replaced(example.before, example.from, example.to));
    it(`flags ${example.name}`, async () => {
      assert.deepEqual(await flagsOf(change, "threshold-loosened"), [
        `threshold-loosened ${example.path}:${example.line}`,
      ]);
    });
  }

  const removed = edit(
    ".coveragerc",
    text("[report]", "fail_under = 95", "show_missing = True"),
    text("[report]", "show_missing = True"),
  );
  it("flags a coverage minimum removed", async () => {
    assert.deepEqual(await flagsOf(removed), ["threshold-loosened .coveragerc:2"]);
    assert.equal((await removed.flags())[0].side, "old");
  });

  const lowered = edit("jest.config.js", jestConfig, replaced(jestConfig, "branches: 80", "branches: 60"));
  it("names the setting and both values", async () => {
    const [flag] = await lowered.flags();
    assert.match(flag.detail, /coverage minimum `branches` lowered from 80 to 60/);
  });

  for (const [name, path, before, from, to] of [
    ["a coverage minimum tightened", "jest.config.js", jestConfig, "branches: 80", "branches: 95"],
    ["a timeout raised a little", "jest.config.js", jestConfig, "testTimeout: 5000", "testTimeout: 7000"],
    ["a timeout lowered", "jest.config.js", jestConfig, "testTimeout: 5000", "testTimeout: 1000"],
    [
      "an unrelated number in a config",
      "jest.config.js",
      jestConfig.replace('"node",', '"node",\n  maxWorkers: 2,'),
      "maxWorkers: 2",
      "maxWorkers: 8",
    ],
    [
      "a version bump",
      "package.json",
      text("{", '  "version": "1.2.3",', '  "engines": { "node": ">=18" }', "}"),
      '"1.2.3"',
      '"1.3.0"',
    ],
    [
      "an engines range changed",
      "package.json",
      text("{", '  "engines": { "node": ">=18" }', "}"),
      ">=18",
      ">=22",
    ],
    [
      "a tolerance tightened",
      "tests/test_geometry.py",
      text("def test_area():", "    assert area(1) == pytest.approx(3.14159, abs=1e-3)"),
      "abs=1e-3",
      "abs=1e-9",
    ],
    [
      "an expected value changed",
      "test/math.test.ts",
      text('test("adds", () => {', "  expect(add(2, 2)).toBe(4);", "});"),
      "toBe(4)",
      "toBe(5)",
    ],
    [
      "toBeCloseTo's expected value changed",
      "test/g.test.ts",
      text("expect(area(1)).toBeCloseTo(3.14, 2);"),
      "3.14, 2",
      "3.1416, 2",
    ],
    [
      "a sleep in a test",
      "test/wait.test.ts",
      text("await new Promise((resolve) => setTimeout(resolve, 10));"),
      "10)",
      "1000)",
    ],
    [
      "a number outside the tamper set",
      "src/server.ts",
      text("export const timeout = 1000;"),
      "1000",
      "60000",
    ],
  ] as const) {
    const change = edit(path, before, replaced(before, from, to));
    it(`does not flag ${name}`, async () => {
      assert.deepEqual(await flagsOf(change, "threshold-loosened"), []);
    });
  }
});

describe("tests-excluded", () => {
  const cases: { name: string; path: string; before: string; from: string; to: string; line: number }[] = [
    {
      name: "jest testPathIgnorePatterns gains an entry",
      path: "jest.config.js",
      before: jestConfig,
      from: '["/node_modules/"]',
      to: '["/node_modules/", "/test/payments/"]',
      line: 7,
    },
    {
      name: "an entry added to a multi-line vitest exclude list",
      path: "vitest.config.ts",
      before: text(
        "export default defineConfig({",
        "  test: {",
        "    exclude: [",
        '      "node_modules/**",',
        "    ],",
        "  },",
        "});",
      ),
      from: '      "node_modules/**",\n',
      to: '      "node_modules/**",\n      "src/payments.test.ts",\n',
      line: 5,
    },
    {
      name: "an entry added to a list that starts on its setting's line",
      path: "jest.config.js",
      before: text(
        "module.exports = {",
        '  testPathIgnorePatterns: ["/node_modules/",',
        '    "/dist/"],',
        "};",
      ),
      from: '    "/dist/"],',
      to: '    "/dist/", "/test/payments/"],',
      line: 3,
    },
    {
      name: "pytest --ignore in addopts",
      path: "pytest.ini",
      before: text("[pytest]", "addopts = -q", "testpaths = tests"),
      from: "addopts = -q",
      to: "addopts = -q --ignore=tests/test_payments.py",
      line: 2,
    },
    {
      name: 'pytest -k "not …" in CI',
      path: ".github/workflows/ci.yml",
      before: text("jobs:", "  test:", "    steps:", "      - run: pytest -q"),
      from: "pytest -q",
      to: 'pytest -q -k "not payments"',
      line: 4,
    },
    {
      name: "coverage.py omit gains a continuation line",
      path: ".coveragerc",
      before: text("[run]", "omit =", "    */migrations/*", "", "[report]", "fail_under = 90"),
      from: "    */migrations/*\n",
      to: "    */migrations/*\n    app/payments.py\n",
      line: 4,
    },
    {
      name: "a YAML exclude list gains an item",
      path: ".golangci.yml",
      before: text("issues:", "  exclude-dirs:", "    - vendor", "linters:", "  enable: [govet]"),
      from: "    - vendor\n",
      to: "    - vendor\n    - internal/payments\n",
      line: 4,
    },
    {
      name: "conftest collect_ignore gains an entry",
      path: "tests/conftest.py",
      before: text("import pytest", "", "collect_ignore = []"),
      from: "collect_ignore = []",
      to: 'collect_ignore = ["test_payments.py"]',
      line: 3,
    },
    {
      name: "ExUnit excludes a tag",
      path: "test/test_helper.exs",
      before: text("ExUnit.start()"),
      from: "ExUnit.start()",
      to: "ExUnit.start(exclude: [:payments])",
      line: 1,
    },
    {
      name: "a CI step that ignores test failures",
      path: ".github/workflows/ci.yml",
      before: text("jobs:", "  test:", "    steps:", "      - run: npm test"),
      from: "      - run: npm test",
      to: "      - run: npm test\n        continue-on-error: true",
      line: 5,
    },
    {
      name: "a test script that swallows failures",
      path: "package.json",
      before: text("{", '  "scripts": { "test": "node --test" }', "}"),
      from: '"node --test"',
      to: '"node --test || true"',
      line: 2,
    },
    {
      name: "maven skips tests",
      path: "Makefile",
      before: text("build:", "\tmvn package"),
      from: "mvn package",
      to: "mvn package -DskipTests",
      line: 2,
    },
    {
      name: "cargo test skips a test in CI",
      path: ".github/workflows/ci.yml",
      before: text("jobs:", "  test:", "    steps:", "      - run: cargo test"),
      from: "cargo test",
      to: "cargo test -- --skip payments",
      line: 4,
    },
    {
      name: "RSpec excludes a tag",
      path: ".rspec",
      before: text("--require spec_helper"),
      from: "--require spec_helper",
      to: "--require spec_helper\n--tag ~payments",
      line: 2,
    },
    {
      name: "an .eslintignore entry",
      path: ".eslintignore",
      before: text("dist/"),
      from: "dist/\n",
      to: "dist/\nsrc/payments/\n",
      line: 2,
    },
  ];
  for (const example of cases) {
    const change = edit(example.path, example.before, replaced(example.before, example.from, example.to));
    it(`flags ${example.name}`, async () => {
      assert.deepEqual(await flagsOf(change, "tests-excluded"), [
        `tests-excluded ${example.path}:${example.line}`,
      ]);
    });
  }

  const reformatted = edit(
    "jest.config.js",
    jestConfig,
    replaced(
      jestConfig,
      '  testPathIgnorePatterns: ["/node_modules/"],',
      '  testPathIgnorePatterns: [\n    "/node_modules/",\n  ],',
    ),
  );
  const shrunk = edit(
    "jest.config.js",
    replaced(jestConfig, '["/node_modules/"]', '["/node_modules/", "/dist/"]'),
    jestConfig,
  );
  it("does not flag an exclusion list reformatted or shrunk", async () => {
    assert.deepEqual(await flagsOf(reformatted, "tests-excluded"), []);
    assert.deepEqual(await flagsOf(shrunk, "tests-excluded"), []);
  });

  const movedBetweenFiles = change(
    { "setup.cfg": text("[flake8]", "extend-ignore =", "    E203", "    E501", "max-line-length = 88") },
    { "setup.cfg": null, ".flake8": text("[flake8]", "extend-ignore =", "    E203", "    E501") },
  );
  it("does not flag exclusions moved to another configuration file", async () => {
    assert.deepEqual(await flagsOf(movedBetweenFiles, "tests-excluded"), []);
  });

  const warningsFilter = edit(
    "setup.cfg",
    text("[tool:pytest]", "filterwarnings =", "    error"),
    text(
      "[tool:pytest]",
      "filterwarnings =",
      "    error",
      "    ignore:datetime.utcfromtimestamp:DeprecationWarning",
    ),
  );
  it("does not read a value that starts with ignore: as an ignore setting", async () => {
    assert.deepEqual(await flagsOf(warningsFilter, "tests-excluded"), []);
  });

  const commented = edit(
    "pytest.ini",
    text("[pytest]", "addopts = -q"),
    text("[pytest]", "# addopts = -q --ignore=tests/test_payments.py", "addopts = -q"),
  );
  it("does not flag an exclusion in a comment", async () => {
    assert.deepEqual(await flagsOf(commented, "tests-excluded"), []);
  });
});
