import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { after, describe, test } from "node:test";
import { type ParsedSpec, parseSpecText } from "../src/core/spec-file.ts";
import { UsageError } from "../src/errors.ts";
import { detectProject } from "../src/init/detect-project.ts";
import type { Detection } from "../src/init/detection.ts";
import type { ProjectFiles } from "../src/init/project-files.ts";
import { goalPlaceholder } from "../src/init/render-spec.ts";
import { runInit } from "../src/init/run-init.ts";
import { specNameFromFolder } from "../src/init/spec-name.ts";

const fixtures = join(import.meta.dirname, "fixtures", "init");
const binaries = join(import.meta.dirname, "..", "node_modules", ".bin");
const temporaryFolders: string[] = [];

after(async () => {
  await Promise.all(temporaryFolders.map((folder) => rm(folder, { recursive: true, force: true })));
});

async function temporaryFolder(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), "loopwright-init-"));
  temporaryFolders.push(folder);
  return folder;
}

/** A fresh copy of fixture `name` in a folder called `<name>-project`. */
async function copyFixture(name: string): Promise<string> {
  const project = join(await temporaryFolder(), `${name}-project`);
  await cp(join(fixtures, name), project, { recursive: true });
  return project;
}

async function readSpec(path: string, specDirectory: string): Promise<ParsedSpec> {
  return parseSpecText(await readFile(path, "utf8"), path, specDirectory);
}

/** Files for pure detection: names ending in "/" are folders; every file's text is visible. */
function projectFiles(files: Record<string, string>): ProjectFiles {
  return { entries: Object.keys(files), contents: files };
}

function gateCommands(detection: Detection): Record<string, string> {
  return Object.fromEntries(detection.gates.map((gate) => [gate.id, `${gate.kind}: ${gate.run}`]));
}

/** Runs `command` with `sh -c` in `cwd`; fails the test with the output when it exits non-zero. */
function assertCommandPasses(command: string, cwd: string, env: Record<string, string> = {}): void {
  const result = spawnSync("sh", ["-c", command], {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      PATH: `${binaries}${delimiter}${process.env.PATH}`,
      npm_config_audit: "false",
      npm_config_fund: "false",
      npm_config_update_notifier: "false",
      ...env,
    },
  });
  assert.equal(result.status, 0, `\`${command}\` failed in ${cwd}:\n${result.stdout}\n${result.stderr}`);
}

function isOnPath(program: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${program}`]).status === 0;
}

describe("runInit on one fixture project per ecosystem", () => {
  test("node: npm scripts and npm ci from the lockfile, all passing", async () => {
    const project = await copyFixture("node");
    const { path, detected } = await runInit({ directory: project, force: false });
    assert.equal(path, join(project, "loop.yaml"));
    const { spec } = await readSpec(path, project);
    assert.equal(spec.name, "node-project");
    assert.equal(spec.maker.engine, "claude-code");
    assert.deepEqual(spec.setup, ["npm ci"]);
    assert.deepEqual(gateCommands(detected), {
      tests: "tests-pass: npm test",
      build: "build-succeeds: npm run build",
    });
    assert.deepEqual(
      spec.gates.map((gate) => gate.run),
      ["npm test", "npm run build"],
    );
    for (const command of [...spec.setup, ...spec.gates.map((gate) => gate.run ?? "")]) {
      assertCommandPasses(command, project);
    }
  });

  test("python: pytest configured in pyproject.toml, passing", async () => {
    const project = await copyFixture("python");
    const { path } = await runInit({ directory: project, force: false });
    const { spec } = await readSpec(path, project);
    assert.deepEqual(
      spec.gates.map((gate) => [gate.id, gate.kind, gate.run]),
      [["tests", "tests-pass", "python3 -m pytest"]],
    );
    assert.deepEqual(spec.setup, []);
    for (const gate of spec.gates) assertCommandPasses(gate.run ?? "", project);
  });

  test("python without a manifest: a test_*.py beside the code gets unittest, passing", async () => {
    const project = join(await temporaryFolder(), "calc");
    await mkdir(project);
    await writeFile(join(project, "calc.py"), "def add(a, b):\n    return a + b\n");
    await writeFile(
      join(project, "test_calc.py"),
      "import unittest\nfrom calc import add\n\nclass AddTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n",
    );
    const { path } = await runInit({ directory: project, force: false });
    const { spec } = await readSpec(path, project);
    assert.deepEqual(
      spec.gates.map((gate) => [gate.id, gate.kind, gate.run]),
      [["tests", "tests-pass", "python3 -m unittest"]],
    );
    for (const gate of spec.gates) assertCommandPasses(gate.run ?? "", project);
  });

  test("rust: cargo test and cargo build, no clippy unless configured, passing offline", async () => {
    const project = await copyFixture("rust");
    const { path } = await runInit({ directory: project, force: false });
    const { spec } = await readSpec(path, project);
    assert.deepEqual(
      spec.gates.map((gate) => [gate.id, gate.kind, gate.run]),
      [
        ["tests", "tests-pass", "cargo test --no-fail-fast"],
        ["build", "build-succeeds", "cargo build"],
      ],
    );
    const targetDirectory = await temporaryFolder();
    for (const gate of spec.gates) {
      assertCommandPasses(gate.run ?? "", project, {
        CARGO_TARGET_DIR: targetDirectory,
        CARGO_NET_OFFLINE: "true",
      });
    }
  });

  test("rust: the proposed test gate runs every test binary when an earlier one fails", async () => {
    // Without --no-fail-fast cargo stops at the first failing binary: the baseline would count only the
    // tests before it, and a change that breaks a later binary would look like fewer failures.
    const project = await copyFixture("rust");
    await writeFile(
      join(project, "src", "lib.rs"),
      "pub fn add(a: i32, b: i32) -> i32 { a + b }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn broken() {\n        assert_eq!(super::add(1, 1), 3);\n    }\n}\n",
    );
    await mkdir(join(project, "tests"));
    await writeFile(
      join(project, "tests", "later.rs"),
      "#[test]\nfn later_binary_runs() {\n    assert_eq!(2 + 2, 4);\n}\n",
    );
    const { path } = await runInit({ directory: project, force: false });
    const { spec } = await readSpec(path, project);
    const command = spec.gates.find((gate) => gate.id === "tests")?.run ?? "";
    const result = spawnSync("sh", ["-c", command], {
      cwd: project,
      encoding: "utf8",
      env: { ...process.env, CARGO_TARGET_DIR: await temporaryFolder(), CARGO_NET_OFFLINE: "true" },
    });
    const output = `${result.stdout}\n${result.stderr}`;
    assert.notEqual(result.status, 0, output);
    assert.match(output, /test tests::broken \.\.\. FAILED/);
    assert.match(output, /test later_binary_runs \.\.\. ok/);
  });

  test("make: targets test, build and lint, passing", async () => {
    const project = await copyFixture("make");
    const { path } = await runInit({ directory: project, force: false });
    const { spec } = await readSpec(path, project);
    assert.deepEqual(
      spec.gates.map((gate) => [gate.id, gate.kind, gate.run]),
      [
        ["tests", "tests-pass", "make test"],
        ["build", "build-succeeds", "make build"],
        ["lint", "lint-clean", "make lint"],
      ],
    );
    for (const gate of spec.gates) assertCommandPasses(gate.run ?? "", project);
  });

  test("go: go test, build and vet", async (t) => {
    const project = await copyFixture("go");
    const { path } = await runInit({ directory: project, force: false });
    const { spec } = await readSpec(path, project);
    assert.deepEqual(
      spec.gates.map((gate) => [gate.id, gate.kind, gate.run]),
      [
        ["tests", "tests-pass", "go test ./..."],
        ["build", "build-succeeds", "go build ./..."],
        ["vet", "lint-clean", "go vet ./..."],
      ],
    );
    if (!isOnPath("go")) {
      t.skip("go toolchain not installed");
      return;
    }
    const cache = await temporaryFolder();
    for (const gate of spec.gates) {
      assertCommandPasses(gate.run ?? "", project, { GOCACHE: cache, GOFLAGS: "-mod=mod", GOPROXY: "off" });
    }
  });
});

describe("runInit writing the file", () => {
  test("refuses to overwrite an existing loop.yaml without force, and leaves it untouched", async () => {
    const project = await copyFixture("make");
    await writeFile(join(project, "loop.yaml"), "name: mine\n");
    await assert.rejects(runInit({ directory: project, force: false }), (error) => {
      assert.ok(error instanceof UsageError);
      assert.match(error.message, /loop\.yaml already exists/);
      assert.doesNotMatch(error.message, /\n/);
      return true;
    });
    assert.equal(await readFile(join(project, "loop.yaml"), "utf8"), "name: mine\n");
  });

  test("overwrites an existing loop.yaml with force", async () => {
    const project = await copyFixture("make");
    await writeFile(join(project, "loop.yaml"), "name: mine\n");
    const { path } = await runInit({ directory: project, force: true });
    const { spec } = await readSpec(path, project);
    assert.equal(spec.name, "make-project");
    assert.equal(spec.gates.length, 3);
  });

  test("a folder with nothing detectable gets a valid spec with no gates and a commented example", async () => {
    const project = join(await temporaryFolder(), "Empty Folder!");
    await mkdir(project);
    await writeFile(join(project, "README.md"), "# nothing to run\n");
    const { path, detected } = await runInit({ directory: project, force: false });
    assert.deepEqual(detected, { ecosystems: [], setup: [], gates: [] });
    const text = await readFile(path, "utf8");
    const { spec } = parseSpecText(text, path, project);
    assert.equal(spec.name, "empty-folder");
    assert.deepEqual(spec.gates, []);
    assert.deepEqual(spec.setup, []);
    assert.equal(spec.goal, goalPlaceholder);
    assert.match(text, /^# - id: tests$/m);
    assert.match(text, /^#\s+kind: agent-check$/m);
  });

  test("every top-level section is preceded by a comment saying what it does", async () => {
    const project = await copyFixture("node");
    const { path } = await runInit({ directory: project, force: false });
    const lines = (await readFile(path, "utf8")).split("\n");
    const keys = lines.flatMap((line, index) => (/^[a-z]+:/.test(line) ? [index] : []));
    assert.deepEqual(
      keys.map((index) => lines[index].split(":")[0]),
      ["name", "goal", "repo", "base", "maker", "verifier", "setup", "gates", "budget", "scope", "finish"],
    );
    for (const index of keys) {
      const key = lines[index].split(":")[0];
      if (key === "base") continue; // shares the comment above repo
      assert.match(lines[index - 1], /^# /, `no comment above ${key}`);
    }
  });

  test("a spec written outside the project points its repo back at the project", async () => {
    const project = await copyFixture("make");
    const output = join(await temporaryFolder(), "loops", "make.yaml");
    await mkdir(join(output, ".."));
    const { path } = await runInit({ directory: project, force: false, output });
    assert.equal(path, output);
    const { spec, repoPath } = await readSpec(output, join(output, ".."));
    assert.equal(repoPath, project);
    assert.notEqual(spec.repo, ".");
  });

  test("a directory that does not exist is a usage error", async () => {
    const missing = join(await temporaryFolder(), "missing");
    await assert.rejects(runInit({ directory: missing, force: false }), UsageError);
  });
});

describe("detectProject (pure)", () => {
  const placeholderTest = 'echo "Error: no test specified" && exit 1';

  test("npm's placeholder test script counts as no test script", () => {
    const detection = detectProject(
      projectFiles({
        "package.json": JSON.stringify({ scripts: { test: placeholderTest, lint: "eslint ." } }),
      }),
    );
    assert.deepEqual(gateCommands(detection), { lint: "lint-clean: npm run lint" });
    assert.deepEqual(detection.setup, []);
  });

  test("the lockfile picks the package manager's commands and install", () => {
    const scripts = { test: "vitest run", build: "tsc -p .", typecheck: "tsc --noEmit", lint: "eslint ." };
    const manifest = JSON.stringify({ scripts, devDependencies: { vitest: "^3" } });
    const cases: [string, string[], string, string][] = [
      [
        "pnpm-lock.yaml",
        [],
        "pnpm test|pnpm run build|pnpm run typecheck|pnpm run lint",
        "pnpm install --frozen-lockfile",
      ],
      [
        "yarn.lock",
        [],
        "yarn test|yarn run build|yarn run typecheck|yarn run lint",
        "yarn install --frozen-lockfile",
      ],
      [
        "yarn.lock",
        [".yarnrc.yml"],
        "yarn test|yarn run build|yarn run typecheck|yarn run lint",
        "yarn install --immutable",
      ],
      [
        "bun.lock",
        [],
        "bun run test|bun run build|bun run typecheck|bun run lint",
        "bun install --frozen-lockfile",
      ],
      ["package-lock.json", [], "npm test|npm run build|npm run typecheck|npm run lint", "npm ci"],
    ];
    for (const [lockfile, extra, commands, install] of cases) {
      const files: Record<string, string> = { "package.json": manifest, [lockfile]: "" };
      for (const name of extra) files[name] = "";
      const detection = detectProject(projectFiles(files));
      assert.equal(detection.gates.map((gate) => gate.run).join("|"), commands, lockfile);
      assert.deepEqual(detection.setup, [install], lockfile);
    }
  });

  test("without a lockfile: the packageManager field, else npm install only when there are dependencies", () => {
    const declared = detectProject(
      projectFiles({
        "package.json": JSON.stringify({ packageManager: "pnpm@9.1.0", scripts: { test: "x" } }),
      }),
    );
    assert.deepEqual(gateCommands(declared), { tests: "tests-pass: pnpm test" });
    const withDependencies = detectProject(
      projectFiles({
        "package.json": JSON.stringify({ scripts: { test: "x" }, dependencies: { zod: "4" } }),
      }),
    );
    assert.deepEqual(withDependencies.setup, ["npm install"]);
  });

  test("an unparsable package.json is reported, not thrown", () => {
    const detection = detectProject(projectFiles({ "package.json": "{ not json" }));
    assert.deepEqual(detection.gates, []);
    assert.match(detection.ecosystems[0].notes[0], /not a valid JSON/);
  });

  test("several ecosystems in one folder get distinct, prefixed gate ids", () => {
    const detection = detectProject(
      projectFiles({
        "package.json": JSON.stringify({ scripts: { test: "node --test" } }),
        "go.mod": "module example.com/x\n",
        Makefile: "test:\n\tgo test ./...\n",
      }),
    );
    assert.deepEqual(gateCommands(detection), {
      "node-tests": "tests-pass: npm test",
      "go-tests": "tests-pass: go test ./...",
      "go-build": "build-succeeds: go build ./...",
      "go-vet": "lint-clean: go vet ./...",
      "make-tests": "tests-pass: make test",
    });
  });

  test("python without a manifest: pytest when configured or a tests/ folder, nothing for scripts alone", () => {
    const commands = (files: Record<string, string>) => gateCommands(detectProject(projectFiles(files)));
    assert.deepEqual(commands({ "calc.py": "", "calc_test.py": "" }), {
      tests: "tests-pass: python3 -m unittest",
    });
    assert.deepEqual(commands({ "calc.py": "", "test_calc.py": "", "conftest.py": "" }), {
      tests: "tests-pass: python3 -m pytest",
    });
    assert.deepEqual(commands({ "calc.py": "", "pytest.ini": "" }), {
      tests: "tests-pass: python3 -m pytest",
    });
    assert.deepEqual(commands({ "calc.py": "", "tests/": "" }), { tests: "tests-pass: python3 -m pytest" });
    assert.deepEqual(commands({ "script.py": "" }), {});
  });

  test("python: unittest without pytest; ruff, flake8 and mypy when configured", () => {
    const bare = detectProject(projectFiles({ "pyproject.toml": '[project]\nname = "x"\n' }));
    assert.deepEqual(gateCommands(bare), { tests: "tests-pass: python3 -m unittest" });

    const configured = detectProject(
      projectFiles({
        "pyproject.toml":
          '[project]\nname = "x"\n\n[tool.ruff.lint]\nselect = ["E"]\n\n[tool.mypy]\nfiles = ["src"]\n',
        "tests/": "",
      }),
    );
    assert.deepEqual(gateCommands(configured), {
      tests: "tests-pass: python3 -m pytest",
      lint: "lint-clean: ruff check .",
      typecheck: "build-succeeds: python3 -m mypy",
    });

    const flake8 = detectProject(
      projectFiles({
        "pyproject.toml": '[project.optional-dependencies]\ndev = ["pytest-cov", "flake8>=7", "mypy"]\n',
        "uv.lock": "",
      }),
    );
    assert.deepEqual(gateCommands(flake8), {
      tests: "tests-pass: uv run python -m pytest",
      lint: "lint-clean: uv run python -m flake8",
      typecheck: "build-succeeds: uv run python -m mypy .",
    });
    assert.deepEqual(flake8.setup, ["uv sync"]);
  });

  test("rust: clippy only when the project asks for it; workspaces test every member", () => {
    const plain = detectProject(projectFiles({ "Cargo.toml": '[package]\nname = "x"\n' }));
    assert.equal(
      plain.gates.find((gate) => gate.kind === "lint-clean"),
      undefined,
    );
    const linted = detectProject(
      projectFiles({
        "Cargo.toml": '[workspace]\nmembers = ["a"]\n\n[workspace.lints.clippy]\npedantic = "warn"\n',
      }),
    );
    assert.deepEqual(gateCommands(linted), {
      tests: "tests-pass: cargo test --workspace --no-fail-fast",
      build: "build-succeeds: cargo build --workspace",
      lint: "lint-clean: cargo clippy --workspace --all-targets -- -D warnings",
    });
  });

  test("make: only rule targets count, not variables or recipe lines", () => {
    const detection = detectProject(
      projectFiles({
        Makefile:
          "CHECK := on\nLINT ::= off\nBUILD = a:b\n.PHONY: test\nall: build\n\ttest: not a rule\ncheck lint: all\n",
      }),
    );
    assert.deepEqual(gateCommands(detection), {
      check: "tests-pass: make check",
      lint: "lint-clean: make lint",
    });
  });
});

test("spec names are folder names sanitised to [a-z0-9-]", () => {
  assert.equal(specNameFromFolder("My_Project.v2"), "my-project-v2");
  assert.equal(specNameFromFolder("Café App"), "cafe-app");
  assert.equal(specNameFromFolder("___"), "loop");
});
