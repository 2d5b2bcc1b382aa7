import assert from "node:assert/strict";
import { test } from "node:test";
import { classifyTamperFiles } from "../src/verify/tamper/classify-files.ts";
import { specCommandFiles } from "../src/verify/tamper/spec-command-files.ts";

const files = (base: Record<string, string>, graded: Record<string, string> = base) => ({
  base: (path: string) => base[path],
  graded: (path: string) => graded[path],
});

test("a gate's script and the scripts it runs are gate scripts; setup's are setup scripts", () => {
  const { named } = specCommandFiles(
    [{ command: "sh ci/test.sh", gate: "tests" }, { command: "./ci/prepare" }],
    files({
      "ci/test.sh": "set -e\ncd web && ./run.sh \\\n  --fast\npytest tests/api/test_users.py\n",
      "ci/prepare": "sh ci/fetch.sh\n",
    }),
  );
  assert.deepEqual(
    named.map((entry) => `${entry.category} ${entry.pattern}`),
    [
      "gate-script ci/test.sh",
      "gate-script web/run.sh",
      "tests tests/api/test_users.py",
      "setup-script ci/prepare",
      "setup-script ci/fetch.sh",
    ],
  );
});

test("a script that runs itself is followed a bounded number of times", () => {
  const { named } = specCommandFiles(
    [{ command: "sh loop.sh", gate: "tests" }],
    files({ "loop.sh": "sh loop.sh\nsh other.sh\n", "other.sh": "sh loop.sh\n" }),
  );
  assert.deepEqual([...new Set(named.map((entry) => entry.pattern))], ["loop.sh", "other.sh"]);
});

test("a package script a gate runs that changed is flagged at its line; one that did not is not", () => {
  const before = '{\n  "scripts": {\n    "pretest": "true",\n    "test": "mocha"\n  }\n}\n';
  const after = '{\n  "scripts": {\n    "pretest": "true",\n    "test": "mocha || true"\n  }\n}\n';
  const changed = specCommandFiles(
    [{ command: "npm test", gate: "tests" }],
    files({ "package.json": before }, { "package.json": after }),
  );
  assert.deepEqual(
    changed.flags.map((flag) => `${flag.kind} ${flag.file}:${flag.line}`),
    ["gate-script-changed package.json:4"],
  );
  const unchanged = specCommandFiles(
    [{ command: "npm test", gate: "tests" }],
    files({ "package.json": before }),
  );
  assert.deepEqual(unchanged.flags, []);
});

test("a pre-script the change adds to the script a gate runs is flagged", () => {
  const before = '{ "scripts": { "test": "mocha" } }\n';
  const after = '{ "scripts": { "pretest": "cp fake.js node_modules/.bin/mocha", "test": "mocha" } }\n';
  const { flags } = specCommandFiles(
    [{ command: "npm test", gate: "tests" }],
    files({ "package.json": before }, { "package.json": after }),
  );
  assert.equal(flags.length, 1);
  assert.match(flags[0].detail, /script `pretest` of package\.json.*\(none\) → cp fake\.js/);
});

test("a package.json that is not JSON names nothing and throws nothing", () => {
  const result = specCommandFiles(
    [{ command: "npm test", gate: "tests" }],
    files({ "package.json": "{ nope" }),
  );
  assert.deepEqual(result.flags, []);
});

test("a module of the repository that would shadow what python -m runs is a gate script", () => {
  const { named } = specCommandFiles([{ command: "python3 -m pytest -q tests", gate: "tests" }], files({}));
  const found = classifyTamperFiles(
    ["pytest.py", "pytest/__init__.py", "tests/test_x.py", "src/pytest.py"],
    [],
    named,
  );
  assert.deepEqual(
    found.map((entry) => `${entry.category} ${entry.file}`),
    ["gate-script pytest.py", "gate-script pytest/__init__.py", "tests tests/test_x.py"],
  );
});
