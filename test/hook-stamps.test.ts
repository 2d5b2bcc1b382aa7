/** Content stamps of changed files: all files, and all but inert prose (pure). */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { contentStamps, isInertProse } from "../src/hooks/review/content-stamps.ts";

describe("inert prose versus code", () => {
  const prose = [
    "README.md",
    "docs/guide.md",
    "docs/notes.txt",
    "notes/2026-11.md",
    "CHANGELOG",
    "LICENSE.txt",
    "LESSONS.md",
    "packages/api/README.rst",
  ];
  const code = [
    "src/index.ts",
    "CLAUDE.md",
    "AGENTS.md",
    "packages/api/CLAUDE.md",
    ".claude/agents/reviewer.md",
    ".claude/commands/ship.md",
    "skills/deploy/SKILL.md",
    "tools/SKILL.md",
    "commands/release.md",
    ".github/copilot-instructions.md",
    "prompts/system.md",
    "review.prompt.md",
    "requirements.txt",
    "docs/conf.py",
    "assets/logo.png",
  ];
  for (const path of prose) test(`${path} is prose`, () => assert.equal(isInertProse(path), true));
  for (const path of code) test(`${path} counts as code`, () => assert.equal(isInertProse(path), false));
  // A name that only lower-cases to a prose one (U+212A KELVIN SIGN lower-cases to "k") is no Markdown
  // to any tool: it stays code, as the case-insensitive regular expressions (no u flag) answered.
  test("a .mar\u212Adown file (Kelvin sign, not k) counts as code", () =>
    assert.equal(isInertProse("src/run.mar\u212Adown"), false));
});

describe("stamps", () => {
  const base = [
    { path: "src/a.ts", digest: "1" },
    { path: "README.md", digest: "2" },
  ];

  test("an edit to prose changes the all stamp only", () => {
    const before = contentStamps(base);
    const after = contentStamps([base[0], { path: "README.md", digest: "3" }]);
    assert.notEqual(after.all, before.all);
    assert.equal(after.code, before.code);
  });

  test("an edit to code, or to behaviour markdown, changes both", () => {
    const before = contentStamps(base);
    const code = contentStamps([{ path: "src/a.ts", digest: "9" }, base[1]]);
    assert.notEqual(code.code, before.code);
    assert.notEqual(code.all, before.all);
    const instructions = contentStamps([...base, { path: "CLAUDE.md", digest: "4" }]);
    assert.notEqual(instructions.code, before.code);
  });

  test("a deleted file and a new file change the stamp; order does not", () => {
    const before = contentStamps(base);
    assert.notEqual(contentStamps([{ path: "src/a.ts", digest: "deleted" }, base[1]]).code, before.code);
    assert.notEqual(contentStamps([...base, { path: "src/b.ts", digest: "5" }]).code, before.code);
    assert.deepEqual(contentStamps([...base].reverse()), before);
  });

  test("lists code and prose apart", () => {
    const stamps = contentStamps(base);
    assert.deepEqual(stamps.codeFiles, ["src/a.ts"]);
    assert.deepEqual(stamps.proseFiles, ["README.md"]);
    assert.deepEqual(stamps.files, ["README.md", "src/a.ts"]);
  });
});
