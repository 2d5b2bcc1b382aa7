import assert from "node:assert/strict";
import { test } from "node:test";
import { makeRecipe } from "../src/verify/tamper/make-recipes.ts";
import { specCommandFiles } from "../src/verify/tamper/spec-command-files.ts";

const makefile = `# build things
CC ?= cc
.PHONY: all test lint

all: build

build: src/main.c
\t$(CC) -o out src/main.c

test lint-test: build
\t@echo "testing"
\t-sh scripts/verify.sh \\
\t  --strict

\tnode --test

lint:
\t! grep -n " $$" README.md
`;

test("a target's recipe: its lines, joined continuations, without @ - + prefixes, and where it starts", () => {
  assert.deepEqual(makeRecipe(makefile, "test"), {
    line: 10,
    prerequisites: ["build"],
    commands: ['echo "testing"', "sh scripts/verify.sh --strict", "node --test"],
  });
  assert.deepEqual(makeRecipe(makefile, "lint-test")?.commands.length, 3);
  assert.deepEqual(makeRecipe(makefile, "")?.line, 5, "the default goal is the first ordinary target");
  assert.equal(makeRecipe(makefile, "missing"), undefined);
  assert.equal(makeRecipe(makefile, "CC"), undefined, "a variable is not a target");
});

test("a recipe a gate runs that changed is a gate-script-changed flag at the target; its scripts are gate scripts", () => {
  const after = makefile.replace("\tnode --test\n", "\ttrue\n");
  const result = specCommandFiles([{ command: "make test", gate: "tests" }], {
    base: (path) => (path === "Makefile" ? makefile : undefined),
    graded: (path) => (path === "Makefile" ? after : undefined),
  });
  assert.deepEqual(
    result.flags.map((flag) => `${flag.kind} ${flag.file}:${flag.line}`),
    ["gate-script-changed Makefile:10"],
  );
  assert.match(
    result.flags[0].detail,
    /recipe of `test` in Makefile, which gate tests runs \(`make test`\), changed/,
  );
  assert.ok(
    result.named.some((entry) => entry.category === "gate-script" && entry.pattern === "scripts/verify.sh"),
  );
});

test("a recipe only re-indented or a Makefile edited elsewhere raises nothing", () => {
  const after = makefile.replace("lint:\n", "lint: build\n");
  const result = specCommandFiles([{ command: "make test", gate: "tests" }], {
    base: (path) => (path === "Makefile" ? makefile : undefined),
    graded: (path) => (path === "Makefile" ? after : undefined),
  });
  assert.deepEqual(result.flags, []);
});
