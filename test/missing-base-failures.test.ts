/**
 * `baseline-failure-not-executed`: a base failure whose name was in the base commit's code and is gone
 * from the graded commit's; names the code never spelled out are not judged.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  missingBaseFailures,
  parseGrepHits,
  searchTermOf,
} from "../src/verify/tamper/missing-base-failures.ts";

test("the searched part of each runner's test name", () => {
  assert.equal(searchTermOf("add sums two numbers"), "add sums two numbers");
  assert.equal(searchTermOf("calc > add > sums two numbers"), "sums two numbers");
  assert.equal(searchTermOf("py/test_calc.py::TestCalc::test_add_sums[2-3]"), "test_add_sums");
  assert.equal(searchTermOf("tests::adds_two"), "adds_two");
  assert.equal(searchTermOf("test_calc.TestCalc.test_adds"), "test_adds");
  assert.equal(searchTermOf("test_adds (test_calc.TestCalc.test_adds)"), "test_adds");
  assert.equal(searchTermOf("a > ok"), undefined, "too short to mean anything");
  assert.equal(searchTermOf('says "hi"'), undefined, "an escaped name is not spelled out in the code");
});

test("a base failure gone from the code is flagged where it was; one still there, or never spelled out, is not", () => {
  const base = "bbbb";
  const atBase = parseGrepHits(
    `${base}:test/add.test.js:5:test("add sums two numbers", () => {\n${base}:test/add.test.js:9:test("add keeps zero", () => {\n`,
    base,
    ["add sums two numbers", "add keeps zero"],
  );
  const atGraded = parseGrepHits('cccc:test/add.test.js:5:test("add keeps zero", () => {\n', "cccc", [
    "add sums two numbers",
    "add keeps zero",
  ]);
  assert.deepEqual(
    missingBaseFailures(
      "tests",
      ["add sums two numbers", "add keeps zero", "adds 1 + 2"],
      [],
      atBase,
      atGraded,
    ),
    [
      {
        kind: "baseline-failure-not-executed",
        file: "test/add.test.js",
        line: 5,
        side: "old",
        detail: 'gate tests: "add sums two numbers" failed on the base commit and is no longer in the code',
      },
    ],
  );
});
