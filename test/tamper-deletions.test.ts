import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { change, edit, flagsOf, text } from "./fixtures/tamper/git-diff.ts";
import { replaced } from "./support/replaced.ts";

/** One test file per language, with two tests and the edits the cases make to it. */
const suites = {
  javascript: {
    path: "src/math.test.ts",
    before: text(
      'test("adds", () => {',
      "  const total = add(1, 2);",
      "  expect(total).toBe(3);",
      "});",
      "",
      'test("subtracts", () => {',
      "  const difference = sub(3, 2);",
      "  assert.equal(difference, 1);",
      "});",
    ),
    assertion: "  expect(total).toBe(3);\n",
    assertionLine: 3,
    firstTest: 'test("adds", () => {\n  const total = add(1, 2);\n  expect(total).toBe(3);\n});\n\n',
    rename: ['test("adds"', 'test("adds two numbers"'],
  },
  python: {
    path: "tests/test_math.py",
    before: text(
      "def test_adds():",
      "    total = add(1, 2)",
      "    assert total == 3",
      "",
      "",
      "def test_subtracts():",
      "    difference = sub(3, 2)",
      "    assert difference == 1",
    ),
    assertion: "    assert total == 3\n",
    assertionLine: 3,
    firstTest: "def test_adds():\n    total = add(1, 2)\n    assert total == 3\n\n\n",
    rename: ["def test_adds", "def test_adds_two_numbers"],
  },
  go: {
    path: "math_test.go",
    before: text(
      "package math",
      "",
      "func TestAdd(t *testing.T) {",
      "\ttotal := Add(1, 2)",
      '\tif total != 3 { t.Errorf("got %d", total) }',
      "}",
      "",
      "func TestSub(t *testing.T) {",
      "\tdifference := Sub(3, 2)",
      '\tif difference != 1 { t.Fatal("bad") }',
      "}",
    ),
    assertion: '\tif total != 3 { t.Errorf("got %d", total) }\n',
    assertionLine: 5,
    firstTest:
      'func TestAdd(t *testing.T) {\n\ttotal := Add(1, 2)\n\tif total != 3 { t.Errorf("got %d", total) }\n}\n\n',
    rename: ["func TestAdd(", "func TestAddition("],
  },
  rust: {
    path: "tests/math.rs",
    before: text(
      "#[test]",
      "fn adds() {",
      "    let total = add(1, 2);",
      "    assert_eq!(total, 3);",
      "}",
      "",
      "#[test]",
      "fn subtracts() {",
      "    let difference = sub(3, 2);",
      "    assert!(difference == 1);",
      "}",
    ),
    assertion: "    assert_eq!(total, 3);\n",
    assertionLine: 4,
    firstTest: "#[test]\nfn adds() {\n    let total = add(1, 2);\n    assert_eq!(total, 3);\n}\n\n",
    rename: ["fn adds()", "fn adds_two_numbers()"],
  },
  java: {
    path: "src/test/java/MathTest.java",
    before: text(
      "class MathTest {",
      "    @Test",
      "    void adds() {",
      "        int total = add(1, 2);",
      "        assertEquals(3, total);",
      "    }",
      "",
      "    @Test",
      "    void subtracts() {",
      "        int difference = sub(3, 2);",
      "        assertThat(difference).isEqualTo(1);",
      "    }",
      "}",
    ),
    assertion: "        assertEquals(3, total);\n",
    assertionLine: 5,
    firstTest:
      "    @Test\n    void adds() {\n        int total = add(1, 2);\n        assertEquals(3, total);\n    }\n\n",
    rename: ["void adds()", "void addsTwoNumbers()"],
  },
  ruby: {
    path: "spec/math_spec.rb",
    before: text(
      'describe "math" do',
      '  it "adds" do',
      "    total = add(1, 2)",
      "    expect(total).to eq(3)",
      "  end",
      "",
      '  it "subtracts" do',
      "    difference = sub(3, 2)",
      "    expect(difference).to eq(1)",
      "  end",
      "end",
    ),
    assertion: "    expect(total).to eq(3)\n",
    assertionLine: 4,
    firstTest: '  it "adds" do\n    total = add(1, 2)\n    expect(total).to eq(3)\n  end\n\n',
    rename: ['it "adds"', 'it "adds two numbers"'],
  },
  elixir: {
    path: "test/math_test.exs",
    before: text(
      "defmodule MathTest do",
      "  use ExUnit.Case",
      "",
      '  test "adds" do',
      "    total = Math.add(1, 2)",
      "    assert total == 3",
      "  end",
      "",
      '  test "subtracts" do',
      "    difference = Math.sub(3, 2)",
      "    refute difference != 1",
      "  end",
      "end",
    ),
    assertion: "    assert total == 3\n",
    assertionLine: 6,
    firstTest: '  test "adds" do\n    total = Math.add(1, 2)\n    assert total == 3\n  end\n\n',
    rename: ['test "adds"', 'test "adds two numbers"'],
  },
};

/** The definition line the test-deleted flag points at (Rust and Java: the function, after its attribute). */
const definitionLine = { javascript: 1, python: 1, go: 3, rust: 2, java: 3, ruby: 2, elixir: 4 };

for (const [language, suite] of Object.entries(suites) as [keyof typeof suites, (typeof suites)["go"]][]) {
  describe(`deleted assertions and tests: ${language}`, () => {
    const { path, before, assertion } = suite;
    const deleted = edit(path, before, replaced(before, assertion, ""));
    it("flags a deleted assertion", async () => {
      assert.deepEqual(await flagsOf(deleted, "assertion-deleted"), [
        `assertion-deleted ${path}:${suite.assertionLine}`,
      ]);
    });

    const comment = language === "python" || language === "ruby" || language === "elixir" ? "# " : "// ";
    const commentedOut = edit(
      path,
      before,
      replaced(before, assertion, assertion.replace(/^(\s*)/, `$1${comment}`)),
    );
    it("flags an assertion commented out", async () => {
      assert.deepEqual(await flagsOf(commentedOut, "assertion-deleted"), [
        `assertion-deleted ${path}:${suite.assertionLine}`,
      ]);
    });

    // The assertion re-added as the last line of the second test's body (before its closing line).
    const lines = replaced(before, assertion, "").split("\n");
    lines.splice(
      lines.length - (language === "java" || language === "elixir" || language === "ruby" ? 4 : 3),
      0,
      assertion.trimEnd(),
    );
    const moved = edit(path, before, lines.join("\n"));
    it("does not flag an assertion moved to the other test", async () => {
      assert.ok((await moved.diff()).includes(`+${assertion}`));
      assert.deepEqual(await flagsOf(moved), []);
    });

    const testDeleted = edit(path, before, replaced(before, suite.firstTest, ""));
    it("flags a deleted test once, not its assertions", async () => {
      assert.deepEqual(await flagsOf(testDeleted), [`test-deleted ${path}:${definitionLine[language]}`]);
    });

    const [from, to] = suite.rename;
    const renamed = edit(path, before, replaced(before, from, to));
    it("does not flag a test renamed with the same body", async () => {
      assert.deepEqual(await flagsOf(renamed), []);
    });

    const replacedTest = edit(path, before, replaced(replaced(before, from, to), assertion, ""));
    it("flags a test replaced by another under a new name with a different body", async () => {
      const kinds = (await replacedTest.flags()).map((flag) => flag.kind);
      assert.ok(kinds.includes("test-deleted"), kinds.join(", "));
    });
  });
}

describe("deleted assertions and tests across files", () => {
  const python = suites.python;
  const movedToAnotherFile = change(
    { [python.path]: python.before },
    {
      [python.path]: python.before.replace(python.firstTest, ""),
      "tests/test_addition.py": python.firstTest,
    },
  );
  it("does not flag a test moved to another file", async () => {
    assert.deepEqual(await flagsOf(movedToAnotherFile), []);
  });

  const javascript = suites.javascript;
  const fileDeleted = change({ [javascript.path]: javascript.before }, { [javascript.path]: null });
  it("flags every test of a deleted test file", async () => {
    assert.deepEqual(await flagsOf(fileDeleted), [
      `test-deleted ${javascript.path}:1`,
      `test-deleted ${javascript.path}:6`,
    ]);
  });

  const rewrapped = edit(
    "test/format.test.ts",
    text('test("formats", () => {', '  expect(format({ a: 1, b: 2 })).toEqual({ a: "1", b: "2" });', "});"),
    text(
      'test("formats", () => {',
      "  expect(format({ a: 1, b: 2 })).toEqual({",
      '    a: "1",',
      '    b: "2",',
      "  });",
      "});",
    ),
  );
  it("does not flag an assertion re-wrapped over several lines", async () => {
    assert.deepEqual(await flagsOf(rewrapped), []);
  });

  const weakened = edit(
    "tests/test_weak.py",
    text("def test_a():", "    assert value() == 3"),
    text("def test_a():", "    assert value() == 3 or True"),
  );
  it("flags an assertion weakened into a longer expression", async () => {
    assert.deepEqual(await flagsOf(weakened), ["assertion-deleted tests/test_weak.py:2"]);
    const [flag] = await weakened.flags();
    assert.match(
      flag.detail,
      /^assertion changed: assert value\(\) == 3 → assert value\(\) == 3 or True \(line 2\)$/,
    );
  });

  const regrouped = edit(
    "tests/test_query.py",
    text(
      "def test_decode():",
      '    params = decode("a=1&b=2")',
      '    assert params["a"] == "1"',
      '    assert params["b"] == "2"',
      '    assert decode("x")["x"] == ""',
    ),
    text(
      "class TestDecode:",
      "    def test_queries(self):",
      '        params = decode("a=1&b=2")',
      '        assert params["a"] == "1"',
      '        assert params["b"] == "2"',
    ),
  );
  it("reads a test renamed into a group with most of its body as a rename, and flags the assertion it lost", async () => {
    assert.deepEqual(await flagsOf(regrouped), ["assertion-deleted tests/test_query.py:5"]);
  });

  const wrappedInLoop = edit(
    "spec/max_spec.rb",
    text('it "matches" do', '  body("/0").must_equal "0"', '  body("/#{max}").must_equal max', "end"),
    text(
      'it "matches" do',
      "  2.times do",
      '    body("/0").must_equal "0"',
      '    body("/#{max}").must_equal max',
      '    body("/a/0").must_equal "0"',
      "    app.freeze",
      "  end",
      "end",
    ),
  );
  it("does not flag assertions re-indented into a block among other added lines", async () => {
    assert.deepEqual(await flagsOf(wrappedInLoop), []);
  });

  const commentRemoved = edit(
    "test/old.test.js",
    text('test("a", () => {', "  // expect(a).toBe(1);", "  expect(b).toBe(2);", "});"),
    text('test("a", () => {', "  expect(b).toBe(2);", "});"),
  );
  it("does not flag a commented-out assertion being deleted", async () => {
    assert.deepEqual(await flagsOf(commentRemoved), []);
  });
});
