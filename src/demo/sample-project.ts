/**
 * The demo's sample project: a tiny slug library with a failing test, and the scripted maker that fixes
 * it in two attempts (the first only half right), so the demo shows a red iteration, then a green one.
 */

export const sampleFiles: Record<string, string> = {
  "package.json": `${JSON.stringify({ name: "slug-demo", private: true, type: "module", scripts: { test: "node --test" } }, null, 2)}\n`,
  "src/slugify.js": `/** Turns a title into a URL slug. */
export function slugify(title) {
  return title.replace(/ /g, "-");
}
`,
  "test/slugify.test.js": `import assert from "node:assert/strict";
import { test } from "node:test";
import { slugify } from "../src/slugify.js";

test("lowercases", () => assert.equal(slugify("Hello"), "hello"));
test("joins words with dashes", () => assert.equal(slugify("make it work"), "make-it-work"));
test("drops punctuation and collapses dashes", () => assert.equal(slugify("Ready,  set -- go!"), "ready-set-go"));
`,
  "README.md": "# slug-demo\n\nA sample project for `loopwright demo`.\n",
};

/** The first, half-right attempt. */
export const halfFix = `/** Turns a title into a URL slug. */
export function slugify(title) {
  return title.toLowerCase().replace(/ /g, "-");
}
`;

/** The second attempt, which fixes it. */
export const fullFix = `/** Turns a title into a URL slug: lowercase words joined by single dashes, punctuation dropped. */
export function slugify(title) {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}
`;

/** The demo's gates and budget, shared by the scripted demo and the real-CLI rehearsals. */
export const sampleGates = `gates:
  - { id: tests, kind: tests-pass, run: "node --test", timeout: 2m }
  - { id: syntax, kind: build-succeeds, run: "node --check src/slugify.js" }
  - { id: readable, kind: agent-check, assert: "slugify has a doc comment that says what it returns." }
budget: { maxIterations: 4, wallClockPerIteration: 5m }
scope: { allow: ["src/**"], protect: ["test/**"] }
finish: { action: branch }
`;

/** The demo spec, as a user would write it. */
export const sampleSpec = `name: slug-demo
goal: |
  Every test in test/slugify.test.js passes, without changing the tests.
repo: ./project
maker:
  engine: scripted
  turns:
    - say: "Lowercased the title before joining words with dashes."
      write:
        src/slugify.js: ${JSON.stringify(halfFix)}
    - say: "Replaced every run of non-alphanumerics with one dash and trimmed the ends."
      write:
        src/slugify.js: ${JSON.stringify(fullFix)}
${sampleGates}`;
