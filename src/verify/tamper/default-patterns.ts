/**
 * The default tamper set: files a maker could edit to make the checks pass without meeting the goal.
 * Tests by the conventions of JS/TS, Python, Go, Rust, Java/Kotlin, Ruby, Elixir and Perl; test-runner, lint,
 * type-check, build and coverage configuration; package manifests and lockfiles; CI pipelines; git hooks.
 * Rust tests inside `#[cfg(test)]` modules of ordinary source files are found in the diff instead.
 */

/** Why a file is in the tamper set. */
export type TamperCategory =
  | "tests"
  | "test-config"
  | "coverage-config"
  | "lint-config"
  | "type-check-config"
  | "build-config"
  | "manifest"
  | "lockfile"
  | "ci"
  | "git-hooks"
  | "protected"
  /** A script a gate command runs (see `command-paths.ts`): changing it changes what the gate means. */
  | "gate-script"
  /** A script a setup command runs. */
  | "setup-script";

/** A category, the reason a person reads, and its picomatch globs (matched with `dot: true`). */
export interface TamperPatternGroup {
  category: TamperCategory;
  reason: string;
  patterns: string[];
}

/** `**\/name` for each name: a file of that name in any folder. */
const anywhere = (...names: string[]) => names.map((name) => `**/${name}`);

/**
 * Test files by their name alone (not their folder): such a file stays a test even when a command runs
 * it directly (`perl t/basic.t`, `node test/add.test.js`, `python tests.py`).
 */
export const testFileNamePatterns: readonly string[] = anywhere(
  "*.test.*",
  "*.spec.*",
  "{test,tests,spec,specs}.*",
  "*_spec.*",
  "*_test.*",
  "test_*.py",
  "*.test-d.*",
  "*.t",
);

/**
 * The default tamper patterns, most specific category first (a file's reason is its first match).
 * `scope.protect` is not included: `classifyTamperFiles` adds it.
 */
export const defaultTamperPatterns: readonly TamperPatternGroup[] = [
  {
    category: "tests",
    reason: "test file",
    patterns: [
      // JS/TS (and any language using the same suffixes), snapshots.
      ...anywhere(
        "*.test.*",
        "*.spec.*",
        "*.cy.*",
        "__tests__/**",
        "__mocks__/**",
        "__snapshots__/**",
        "*.snap",
      ),
      // Files named for what they are, whatever the language: `test.js`, `tests.py` (Django),
      // `spec.js`, `src/tests.rs`, `lib/foo_spec.js`, `foo_test.js`, node:test's `test-*.js`, tsd's
      // `index.test-d.ts`.
      ...anywhere("{test,tests,spec,specs}.*", "*_spec.*", "*_test.*", "test-*.*", "*.test-d.*"),
      // Folders by convention: JS, Python, Rust integration tests, Java src/test, Ruby, Elixir.
      ...anywhere("test/**", "tests/**", "spec/**", "e2e/**", "cypress/**"),
      // Python (unittest discovers `test*.py`).
      ...anywhere("test*.py", "*_test.py", "conftest.py"),
      // Perl: `t/*.t`, `xt/*.t`.
      ...anywhere("*.t"),
      // Go.
      ...anywhere("*_test.go", "testdata/**"),
      // Java and Kotlin.
      ...anywhere("src/test/**", "*Test.java", "*Tests.java", "*IT.java", "*Test.kt", "*Tests.kt"),
      // Ruby and Elixir.
      ...anywhere("*_spec.rb", "*_test.rb", "*_test.exs", "test_helper.exs"),
    ],
  },
  {
    category: "test-config",
    reason: "test runner configuration",
    patterns: anywhere(
      "{jest,vitest,mocha,karma,playwright,cypress,wdio,ava,jasmine}.config.*",
      "{jest,vitest}.{setup,workspace}.*",
      "vitest.workspace.*",
      "karma.conf.*",
      "jasmine.json",
      ".mocharc*",
      "pytest.ini",
      "tox.ini",
      "setup.cfg",
      "pyproject.toml",
      "noxfile.py",
      ".rspec",
      "phpunit.xml*",
      ".cargo/config*",
      "nextest.toml",
    ),
  },
  {
    category: "coverage-config",
    reason: "coverage configuration",
    patterns: anywhere(
      ".nycrc*",
      ".c8rc*",
      "codecov.yml",
      ".codecov.yml",
      "codecov.yaml",
      ".coveragerc",
      "jacoco*",
      ".simplecov",
      "coveralls.json",
      ".coveralls.yml",
      "tarpaulin.toml",
      ".tarpaulin.toml",
    ),
  },
  {
    category: "lint-config",
    reason: "lint or format configuration",
    patterns: anywhere(
      ".eslintrc*",
      "eslint.config.*",
      ".eslintignore",
      "biome.json",
      "biome.jsonc",
      ".prettierrc*",
      "prettier.config.*",
      ".prettierignore",
      ".stylelintrc*",
      "ruff.toml",
      ".ruff.toml",
      ".flake8",
      ".pylintrc",
      "pylintrc",
      ".rubocop*.yml",
      ".golangci.*",
      "clippy.toml",
      ".clippy.toml",
      "rustfmt.toml",
      ".rustfmt.toml",
      ".credo.exs",
      ".formatter.exs",
      "checkstyle*.xml",
    ),
  },
  {
    category: "type-check-config",
    reason: "type-check configuration",
    patterns: anywhere("tsconfig*.json", "jsconfig*.json", "mypy.ini", ".mypy.ini", "pyrightconfig.json"),
  },
  {
    category: "build-config",
    reason: "build configuration",
    patterns: anywhere(
      "Makefile",
      "makefile",
      "GNUmakefile",
      "*.mk",
      "justfile",
      "Taskfile.y*ml",
      "Rakefile",
      "build.gradle*",
      "settings.gradle*",
      "pom.xml",
      "build.sbt",
      "CMakeLists.txt",
      "{webpack,vite,rollup,esbuild,tsup,babel,swc,turbo}.config.*",
      ".babelrc*",
      ".swcrc",
      "turbo.json",
      "nx.json",
      "rust-toolchain*",
    ),
  },
  {
    category: "manifest",
    reason: "package manifest",
    patterns: anywhere(
      "package.json",
      "pnpm-workspace.yaml",
      ".npmrc",
      "Cargo.toml",
      "go.mod",
      "go.work",
      "requirements*.txt",
      "constraints*.txt",
      "Pipfile",
      "setup.py",
      "Gemfile",
      "*.gemspec",
      "mix.exs",
      "composer.json",
    ),
  },
  {
    category: "lockfile",
    reason: "lockfile",
    patterns: anywhere(
      "package-lock.json",
      "npm-shrinkwrap.json",
      "yarn.lock",
      "pnpm-lock.yaml",
      "bun.lock",
      "bun.lockb",
      "Cargo.lock",
      "go.sum",
      "go.work.sum",
      "poetry.lock",
      "uv.lock",
      "pdm.lock",
      "Pipfile.lock",
      "Gemfile.lock",
      "mix.lock",
      "composer.lock",
      "gradle.lockfile",
      "*.lock",
    ),
  },
  {
    category: "ci",
    reason: "CI pipeline",
    patterns: [
      ".github/workflows/**",
      ".github/actions/**",
      ".circleci/**",
      ".buildkite/**",
      ".woodpecker/**",
      ...anywhere(
        ".gitlab-ci.yml",
        "Jenkinsfile",
        "azure-pipelines.yml",
        ".travis.yml",
        "appveyor.yml",
        "bitbucket-pipelines.yml",
        ".drone.yml",
        ".woodpecker.yml",
      ),
    ],
  },
  {
    category: "git-hooks",
    reason: "git hook",
    patterns: [
      ".husky/**",
      ".githooks/**",
      ...anywhere(
        ".pre-commit-config.yaml",
        ".pre-commit-hooks.yaml",
        "lefthook.yml",
        "lefthook.yaml",
        ".lefthook.yml",
        "lefthook-local.yml",
        ".lintstagedrc*",
        "lint-staged.config.*",
        ".simple-git-hooks*",
      ),
    ],
  },
];
