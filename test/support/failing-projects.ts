/**
 * Small projects with one failing test, for loops and agents to fix: `add()` subtracts. Each comes with
 * what its fixed code reads and a verifier's approval of the fix.
 */

/** CommonJS: add.js and add.test.js (`node --test add.test.js` fails until add.js adds). */
export const addProject = {
  "add.js": "exports.add = (a, b) => a - b;\n",
  "add.test.js": [
    'const test = require("node:test");',
    'const assert = require("node:assert");',
    'const { add } = require("./add.js");',
    'test("adds", () => assert.strictEqual(add(2, 3), 5));',
    "",
  ].join("\n"),
};

/** A patch the apply_patch tool of codex and Copilot applies to add.js, replacing its body. */
export const patchAdd = (from: string, to: string) =>
  `*** Begin Patch\n*** Update File: {{cwd}}/add.js\n@@\n-exports.add = (a, b) => ${from};\n+exports.add = (a, b) => ${to};\n*** End Patch\n`;

/** The verifier's approval of the `tests` gate of a fixed addProject. */
export const addApproval = {
  overall: "pass",
  gates: [{ id: "tests", passed: true, evidence: [{ file: "add.js", line: 1 }] }],
};

/** An ES module: math.js and test/math.test.js (`node --test` fails until math.js adds). */
export const mathProject = {
  "package.json": '{ "type": "module" }\n',
  "math.js": "export function add(a, b) {\n  return a - b;\n}\n",
  "test/math.test.js":
    'import assert from "node:assert/strict";\nimport { test } from "node:test";\nimport { add } from "../math.js";\n\ntest("add", () => assert.equal(add(2, 3), 5));\n',
};

/** math.js of mathProject, fixed. */
export const fixedMath = "export function add(a, b) {\n  return a + b;\n}\n";

/** The verifier's approval of the `tests` gate of a fixed mathProject. */
export const mathApproval = {
  overall: "pass",
  gates: [{ id: "tests", passed: true, reason: "add() adds", evidence: [{ file: "math.js", line: 2 }] }],
};
