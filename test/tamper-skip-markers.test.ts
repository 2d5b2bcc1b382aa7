import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { edit, flagsOf, text } from "./fixtures/tamper/git-diff.ts";
import { replaced } from "./support/replaced.ts";

describe("skip markers: JavaScript and TypeScript", () => {
  const path = "test/math.test.ts";
  const before = text(
    'import { describe, it, test } from "vitest";',
    "",
    'describe("math", () => {',
    '  it("adds", () => {',
    "    expect(add(1, 2)).toBe(3);",
    "  });",
    "",
    '  test("subtracts", () => {',
    "    expect(sub(3, 2)).toBe(1);",
    "  });",
    "});",
  );

  for (const [name, from, to, line] of [
    ["it.skip", 'it("adds"', 'it.skip("adds"', 4],
    ["test.only", 'test("subtracts"', 'test.only("subtracts"', 8],
    ["describe.only", 'describe("math"', 'describe.only("math"', 3],
    ["xit", 'it("adds"', 'xit("adds"', 4],
    ["xdescribe", 'describe("math"', 'xdescribe("math"', 3],
    ["test.todo", '  test("subtracts", () => {', '  test.todo("divides");\n  test("subtracts", () => {', 8],
    ["node:test { skip: true }", 'test("subtracts", () => {', 'test("subtracts", { skip: true }, () => {', 8],
    ["t.skip()", "    expect(sub(3, 2)).toBe(1);", "    t.skip();\n    expect(sub(3, 2)).toBe(1);", 9],
  ] as const) {
    const change = edit(path, before, replaced(before, from, to));
    it(`flags ${name}`, async () => {
      assert.deepEqual(await flagsOf(change, "skip-marker-added"), [`skip-marker-added ${path}:${line}`]);
    });
  }

  const hidden = edit(
    path,
    before,
    replaced(
      before,
      "    expect(add(1, 2)).toBe(3);",
      [
        '    // it.skip("adds") was here; test.only( too',
        "    /* xdescribe( and",
        "       describe.only( */",
        "    const note = \"it.skip(\" + 'test.only(';",
        "    const template = `",
        "      it.skip(inside a template literal)",
        "    `;",
        "    expect(add(1, 2)).toBe(3);",
      ].join("\n"),
    ),
  );
  it("does not flag markers in comments, strings or template literals", async () => {
    assert.deepEqual(await flagsOf(hidden, "skip-marker-added"), []);
  });

  const documentation = text(
    "/**",
    ...Array.from({ length: 8 }, (_, index) => ` * line ${index}`),
    " */",
    "export const a = 1;",
  );
  const inLongComment = edit(
    "test/doc.test.ts",
    documentation,
    replaced(documentation, " * line 6", " * use it.skip(...) to skip a test"),
  );
  it("does not flag a line inside a long doc comment whose start is above the diff's context", async () => {
    assert.deepEqual(await flagsOf(inLongComment, "skip-marker-added"), []);
  });

  const skipped = replaced(before, 'it("adds"', 'it.skip("adds"');
  const moved = edit(
    path,
    skipped,
    replaced(
      replaced(skipped, 'describe("math", () => {', 'describe("maths", () => {'),
      '  it.skip("adds", () => {',
      '    it.skip("adds", () => {',
    ),
  );
  it("does not flag a marker that only moved or was re-indented", async () => {
    assert.deepEqual(await flagsOf(moved, "skip-marker-added"), []);
  });
});

describe("skip markers: Python", () => {
  const path = "tests/test_math.py";
  const before = text(
    "import pytest",
    "",
    "",
    "def test_adds():",
    "    assert add(1, 2) == 3",
    "",
    "",
    "def test_subtracts():",
    "    assert sub(3, 2) == 1",
  );
  for (const [name, from, to, line] of [
    ["@pytest.mark.skip", "def test_adds", '@pytest.mark.skip(reason="flaky")\ndef test_adds', 4],
    [
      "@pytest.mark.skipif",
      "def test_adds",
      '@pytest.mark.skipif(sys.platform == "linux", reason="x")\ndef test_adds',
      4,
    ],
    ["@pytest.mark.xfail", "def test_subtracts", "@pytest.mark.xfail\ndef test_subtracts", 8],
    ["@unittest.skip", "def test_adds", '@unittest.skip("later")\ndef test_adds', 4],
    [
      "pytest.skip()",
      "    assert sub(3, 2) == 1",
      '    pytest.skip("not today")\n    assert sub(3, 2) == 1',
      9,
    ],
  ] as const) {
    const change = edit(path, before, replaced(before, from, to));
    it(`flags ${name}`, async () => {
      assert.deepEqual(await flagsOf(change, "skip-marker-added"), [`skip-marker-added ${path}:${line}`]);
    });
  }

  const hidden = edit(
    path,
    before,
    replaced(
      before,
      "def test_adds():\n",
      [
        "def test_adds():",
        '    """Adds two numbers.',
        "",
        "    Do not use @pytest.mark.skipif here: pytest.skip() hides failures.",
        '    """',
        "    # @pytest.mark.skip(reason='x')",
        "    message = '@pytest.mark.xfail' + \"pytest.skip(\"",
        "",
      ].join("\n"),
    ),
  );
  it("does not flag skipif in a docstring, a comment or a string", async () => {
    assert.deepEqual(await flagsOf(hidden, "skip-marker-added"), []);
  });

  const docstring = text(
    "def test_adds():",
    '    """Adds two numbers.',
    ...Array.from({ length: 8 }, (_, index) => `    Line ${index} of the explanation.`),
    '    """',
    "    assert add(1, 2) == 3",
  );
  const inLongDocstring = edit(
    path,
    docstring,
    replaced(docstring, "Line 7 of the explanation.", "Never mark it with @pytest.mark.skipif."),
  );
  it("does not flag skipif at the end of a long docstring whose opening is above the diff's context", async () => {
    assert.deepEqual(await flagsOf(inLongDocstring, "skip-marker-added"), []);
  });
});

describe("skip markers: Go, Rust, Java, Ruby, Elixir", () => {
  const rspec = text(
    'describe "math" do',
    '  it "adds" do',
    "    expect(add(1, 2)).to eq(3)",
    "  end",
    "end",
  );
  const exunit = text(
    "defmodule MathTest do",
    "  use ExUnit.Case",
    "",
    '  test "adds" do',
    "    assert Math.add(1, 2) == 3",
    "  end",
    "end",
  );
  const junit = (visibility: string) =>
    text(
      "class MathTest {",
      "    @Test",
      `    ${visibility}void adds() {`,
      "        assertEquals(3, add(1, 2));",
      "    }",
      "}",
    );
  const cases: { language: string; path: string; before: string; from: string; to: string; line: number }[] =
    [
      {
        language: "Go t.Skip",
        path: "math_test.go",
        before: text(
          "package math",
          "",
          "func TestAdd(t *testing.T) {",
          "\tif Add(1, 2) != 3 {",
          '\t\tt.Error("bad")',
          "\t}",
          "}",
        ),
        from: "func TestAdd(t *testing.T) {",
        to: 'func TestAdd(t *testing.T) {\n\tt.Skip("flaky")',
        line: 4,
      },
      {
        language: "Rust #[ignore]",
        path: "tests/math.rs",
        before: text("#[test]", "fn adds() {", "    assert_eq!(add(1, 2), 3);", "}"),
        from: "#[test]",
        to: "#[test]\n#[ignore]",
        line: 2,
      },
      {
        language: "Java @Disabled",
        path: "src/test/java/MathTest.java",
        before: junit(""),
        from: "    @Test",
        to: '    @Disabled("later")\n    @Test',
        line: 2,
      },
      {
        language: "Java @Ignore",
        path: "src/test/java/MathTest.java",
        before: junit("public "),
        from: "    @Test",
        to: "    @Ignore\n    @Test",
        line: 2,
      },
      {
        language: "Ruby skip",
        path: "test/math_test.rb",
        before: text(
          "class MathTest < Minitest::Test",
          "  def test_adds",
          "    assert_equal 3, add(1, 2)",
          "  end",
          "end",
        ),
        from: "  def test_adds",
        to: '  def test_adds\n    skip "later"',
        line: 3,
      },
      {
        language: "RSpec xit",
        path: "spec/math_spec.rb",
        before: rspec,
        from: '  it "adds" do',
        to: '  xit "adds" do',
        line: 2,
      },
      {
        language: "RSpec pending",
        path: "spec/math_spec.rb",
        before: rspec,
        from: '  it "adds" do',
        to: '  it "adds" do\n    pending "broken"',
        line: 3,
      },
      {
        language: "Elixir @tag :skip",
        path: "test/math_test.exs",
        before: exunit,
        from: '  test "adds" do',
        to: '  @tag :skip\n  test "adds" do',
        line: 4,
      },
      {
        language: "Elixir @moduletag :skip",
        path: "test/math_test.exs",
        before: exunit,
        from: "  use ExUnit.Case",
        to: "  use ExUnit.Case\n  @moduletag :skip",
        line: 3,
      },
    ];
  for (const example of cases) {
    const change = edit(example.path, example.before, replaced(example.before, example.from, example.to));
    it(`flags ${example.language}`, async () => {
      assert.deepEqual(await flagsOf(change, "skip-marker-added"), [
        `skip-marker-added ${example.path}:${example.line}`,
      ]);
    });
  }

  for (const [language, path, before, after] of [
    [
      "Go",
      "math_test.go",
      "package math\n",
      'package math\n\n// t.Skip("later")\nvar reason = `t.Skip("x")`\n',
    ],
    ["Rust", "tests/math.rs", "fn a() {}\n", '// #[ignore]\nconst R: &str = "#[ignore]";\nfn a() {}\n'],
    [
      "Java",
      "src/test/java/A.java",
      "class A {}\n",
      '/**\n * @Disabled until fixed\n */\nclass A { String s = "@Ignore"; }\n',
    ],
    ["Ruby", "spec/a_spec.rb", "x = 1\n", '# skip "later"\nx = 1\nmessage = "pending"\n'],
    ["Elixir", "test/a_test.exs", "x = 1\n", '# @tag :skip\nx = "@moduletag :skip"\n'],
  ] as const) {
    const change = edit(path, before, after);
    it(`does not flag ${language} markers in comments or strings`, async () => {
      assert.deepEqual(await flagsOf(change, "skip-marker-added"), []);
    });
  }
});
