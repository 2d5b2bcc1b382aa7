/**
 * `failingTestFiles` (run-gate-phase.ts): the test files a gate's failures point at, which a recheck
 * narrows its command to. Its matcher of test file names is compiled at its first question, not when the
 * run's modules load: the answers are the same either way, and a digest with no failure asks none.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Anchor, Digest, FailureBlock } from "../src/gates/digest/digest-types.ts";
import { failingTestFiles } from "../src/loop/steps/run-gate-phase.ts";

function failure(number: number, anchors: Anchor[]): FailureBlock {
  return {
    number,
    runner: "node-test",
    name: `case ${number}`,
    anchors,
    message: "",
    stack: [],
    logLine: number,
  };
}

function digest(failures: FailureBlock[], totalFailures = failures.length): Digest {
  return { runners: ["node-test"], failures, totalFailures, lines: 10 };
}

describe("failingTestFiles", () => {
  test("names each test file the failures point at, once, sorted", () => {
    const failures = [
      failure(1, [
        { file: "src/add.ts", line: 3 },
        { file: "test/add.test.ts", line: 9 },
      ]),
      failure(2, [{ file: "tests/test_parse.py", line: 4 }]),
      failure(3, [{ file: "test/add.test.ts", line: 12 }]),
      failure(4, [{ file: "t/basic.t", line: 1 }]),
      failure(5, [{ file: ".hidden/a.spec.js", line: 1 }]),
    ];
    assert.deepEqual(failingTestFiles(digest(failures)), [
      ".hidden/a.spec.js",
      "t/basic.t",
      "test/add.test.ts",
      "tests/test_parse.py",
    ]);
  });

  test("none when a failure points at no test file, when some were not kept, or when there are none", () => {
    const inTest = failure(1, [{ file: "test/add.test.ts", line: 9 }]);
    const inSource = failure(2, [{ file: "src/add.ts", line: 3 }]);
    assert.equal(failingTestFiles(digest([inTest, inSource])), undefined);
    assert.equal(failingTestFiles(digest([inTest], 2)), undefined);
    assert.equal(failingTestFiles(digest([])), undefined);
  });
});
