/**
 * `test-renamed-out`: a test file renamed or moved where its runner no longer finds it, by the runners'
 * own discovery conventions, in the diff git produces (rename detection on). A rename that stays
 * discoverable raises nothing of this kind.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { change, flagsOf, text } from "./fixtures/tamper/git-diff.ts";

const bodies: Record<string, string> = {
  js: text(
    'const test = require("node:test");',
    'const assert = require("node:assert/strict");',
    'test("adds", () => assert.equal(1 + 1, 2));',
  ),
  py: text("def test_adds():", "    assert 1 + 1 == 2", "", "def test_subtracts():", "    assert 2 - 1 == 1"),
  rs: text("#[test]", "fn adds() {", "    assert_eq!(1 + 1, 2);", "}"),
  go: text(
    "package calc",
    "",
    'import "testing"',
    "",
    "func TestAdd(t *testing.T) {",
    "\tif 1+1 != 2 {",
    '\t\tt.Fatal("no")',
    "\t}",
    "}",
  ),
  rb: text('describe "add" do', '  it "adds" do', "    expect(1 + 1).to eq(2)", "  end", "end"),
  t: text("use Test::More;", "ok(1 + 1 == 2, 'adds');", "done_testing();"),
};

function moved(from: string, to: string) {
  const body = bodies[from.endsWith(".t") ? "t" : (/\.(\w+)$/.exec(from)?.[1] ?? "js")] ?? bodies.js;
  return change({ [from]: body }, { [from]: null, [to]: body });
}

describe("a test file renamed out of its runner's discovery", () => {
  const cases: [string, string][] = [
    ["test/add.test.js", "test/add.test.js.bak"],
    ["src/add.test.ts", "src/add.ts.disabled"],
    ["src/__tests__/add.js", "src/__fixtures__/add.js"],
    ["tests/test_x.py", "tests/x_check.py"],
    ["polls/tests.py", "polls/checks.py"],
    ["app/calc_test.py", "app/calc_check.py"],
    ["tests/it.rs", "examples/it.rs"],
    ["tests/it.rs", "tests/common/it.rs"],
    ["calc/add_test.go", "calc/add_check.go"],
    ["spec/add_spec.rb", "spec/add.rb"],
    ["t/add.t", "t/add.t.off"],
  ];
  for (const [from, to] of cases) {
    const renamed = moved(from, to);
    it(`${from} → ${to}`, async () => {
      assert.deepEqual(await flagsOf(renamed, "test-renamed-out"), [`test-renamed-out ${to}:`]);
      const [flag] = (await renamed.flags()).filter((found) => found.kind === "test-renamed-out");
      assert.match(
        flag.detail,
        new RegExp(`${from.replaceAll(".", "\\.")} renamed to ${to.replaceAll(".", "\\.")}`),
      );
    });
  }
});

describe("a test file renamed where its runner still finds it", () => {
  const cases: [string, string][] = [
    ["test/add.test.js", "test/sum.test.js"],
    ["test/add.test.js", "test/math/add.test.js"],
    ["test/add.test.js", "test/add.js"],
    ["src/add.test.ts", "src/add.spec.ts"],
    ["tests/test_x.py", "tests/unit/test_x.py"],
    ["tests/test_x.py", "tests/x_test.py"],
    ["tests/it.rs", "tests/integration.rs"],
    ["tests/it.rs", "tests/it/main.rs"],
    ["calc/add_test.go", "calc/sum_test.go"],
    ["t/add.t", "t/sum.t"],
  ];
  for (const [from, to] of cases) {
    const renamed = moved(from, to);
    it(`${from} → ${to}`, async () => {
      assert.deepEqual(await flagsOf(renamed, "test-renamed-out"), []);
    });
  }

  const source = change({ "src/calc.js": bodies.js }, { "src/calc.js": null, "src/calc.bak.js": bodies.js });
  it("an ordinary source file renamed is not a test renamed out", async () => {
    assert.deepEqual(await flagsOf(source, "test-renamed-out"), []);
  });
});
