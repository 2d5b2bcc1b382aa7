import assert from "node:assert/strict";
import { test } from "node:test";
import { screenScope } from "../src/verify/scope.ts";
import { fakeSpec } from "./support/fake-loop.ts";

const scope = { allow: ["src/**", "test/**"], deny: [".env*"], protect: ["bench/**"] };

test("files inside allow pass; files outside it are violations naming the allow list", () => {
  const screen = screenScope(["src/parse.ts", "test/parse.test.ts", "src/deep/a/b.ts", "README.md"], scope);
  assert.deepEqual(screen.violations, [{ file: "README.md", rule: "not in allow (src/**, test/**)" }]);
  assert.deepEqual(screen.protectedFiles, []);
});

test("deny wins over allow and names the pattern that denied the file", () => {
  const screen = screenScope(["src/config.ts", "src/secrets.json", ".env"], {
    allow: ["**"],
    deny: ["src/secrets.*", ".env*"],
    protect: [],
  });
  assert.deepEqual(screen.violations, [
    { file: "src/secrets.json", rule: "denied by src/secrets.*" },
    { file: ".env", rule: "denied by .env*" },
  ]);
});

test("dotfiles are matched like any other file", () => {
  const screen = screenScope(
    [".env", ".env.local", "src/.hidden/cache.ts", "test/.eslintrc.json", ".github/workflows/ci.yml"],
    scope,
  );
  assert.deepEqual(screen.violations, [
    { file: ".env", rule: "denied by .env*" },
    { file: ".env.local", rule: "denied by .env*" },
    { file: ".github/workflows/ci.yml", rule: "not in allow (src/**, test/**)" },
  ]);
  // The default scope of a spec allows dotfiles and dot-folders too.
  const everything = fakeSpec().scope;
  assert.deepEqual(screenScope([".github/workflows/ci.yml", ".env", "a/.b/c"], everything).violations, []);
});

test("a pattern without a slash matches a file name in any folder, as in .gitignore", () => {
  const screen = screenScope(["packages/api/.env", "packages/api/env.ts"], {
    allow: ["**"],
    deny: [".env*"],
    protect: [],
  });
  assert.deepEqual(screen.violations, [{ file: "packages/api/.env", rule: "denied by .env*" }]);
  const rooted = screenScope(["packages/api/.env"], { allow: ["**"], deny: ["/.env*"], protect: [] });
  assert.deepEqual(rooted.violations, []);
});

test("protected files are flagged, not violations, and can be outside allow too", () => {
  const screen = screenScope(["bench/score.js", "test/parse.test.ts"], {
    allow: ["src/**", "test/**", "bench/**"],
    deny: [],
    protect: ["bench/**", "test/**"],
  });
  assert.deepEqual(screen.violations, []);
  assert.deepEqual(screen.protectedFiles, ["bench/score.js", "test/parse.test.ts"]);
  const outside = screenScope(["bench/score.js"], scope);
  assert.deepEqual(outside.protectedFiles, ["bench/score.js"]);
  assert.equal(outside.violations.length, 1);
});

test("no changed files, or an empty allow list, screens clean", () => {
  assert.deepEqual(screenScope([], scope), { violations: [], protectedFiles: [] });
  assert.deepEqual(screenScope(["anything/at/all.ts"], { allow: [], deny: [], protect: [] }).violations, []);
});
