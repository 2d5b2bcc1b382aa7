/**
 * A red test gate's recheck reruns only the failing tests where the runner can be told which, and the
 * whole gate otherwise.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { recheckCommand } from "../src/gates/recheck-command.ts";

test("node --test, jest and vitest are narrowed by name; pytest by node id", () => {
  assert.equal(
    recheckCommand("node --test test/*.test.js", ["calc > adds (two) numbers", "settles the queue"]),
    "node --test --test-name-pattern='^adds \\(two\\) numbers$' --test-name-pattern='^settles the queue$' test/*.test.js",
  );
  assert.equal(
    recheckCommand("cd web && npx vitest run", ["math > it's 1.5"]),
    "cd web && npx vitest run -t '(?:it'\\''s 1\\.5)$'",
  );
  assert.equal(recheckCommand("npx jest --ci", ["a > b", "c"]), "npx jest --ci -t '(?:b|c)$'");
  assert.equal(
    recheckCommand("cd py && python3 -m pytest -q", ["test_calc.py::test_add[2-3]"]),
    "cd py && python3 -m pytest -q 'test_calc.py::test_add[2-3]'",
  );
});

test("anything else is rerun whole: npm scripts, pipelines, several commands, unknown names, too many names", () => {
  assert.equal(recheckCommand("npm test", ["a"]), undefined);
  assert.equal(recheckCommand("node --test | tee out.log", ["a"]), undefined);
  assert.equal(recheckCommand("make && node --test", ["a"]), undefined);
  assert.equal(recheckCommand("node --test $(ls test)", ["a"]), undefined);
  assert.equal(recheckCommand("python3 -m pytest", ["ERROR collecting"]), undefined);
  assert.equal(recheckCommand("cargo test", ["not a rust path"]), undefined);
  assert.equal(recheckCommand("node --test", []), undefined);
  assert.equal(
    recheckCommand(
      "node --test",
      Array.from({ length: 51 }, (_, index) => `t${index}`),
    ),
    undefined,
  );
});
