import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type PackageScripts, pathsNamedBy } from "../src/verify/tamper/command-paths.ts";

/** `role path` of each path `command` names, in the order found. */
function named(command: string, packages: Record<string, PackageScripts> = {}): string[] {
  return pathsNamedBy(command, (directory) => packages[directory]).map(
    (path) => `${path.role} ${path.path}${path.script === undefined ? "" : `#${path.script}`}`,
  );
}

describe("pathsNamedBy: tests a runner is told to run", () => {
  const cases: [string, string[]][] = [
    ["mocha tests.js", ["tests tests.js"]],
    ["node --test test/", ["tests test"]],
    ["node --test", []],
    ["pytest tests/test_x.py", ["tests tests/test_x.py"]],
    ["pytest tests/test_x.py::test_add -q", ["tests tests/test_x.py"]],
    ["python -m unittest test.py", ["script unittest.py", "script unittest", "tests test.py"]],
    [
      "python3 -m unittest tests.test_math",
      ["script unittest.py", "script unittest", "tests tests/test_math.py", "tests tests/test_math"],
    ],
    [
      "python -m pytest -k 'not slow' -p no:cacheprovider tests",
      ["script pytest.py", "script pytest", "tests tests"],
    ],
    ["pytest --maxfail 1 --timeout=30 tests/unit", ["tests tests/unit"]],
    ["jest --config jest.ci.js src/parse", ["config jest.ci.js", "tests src/parse"]],
    ["vitest run test/unit", ["tests test/unit"]],
    [
      "mocha --require test/setup.js 'test/**/*.spec.js'",
      ["config test/setup.js", "tests test/**/*.spec.js"],
    ],
    ["mocha -r ts-node/register -R dot lib/checks.js", ["tests lib/checks.js"]],
    ["go test ./internal/parse/...", ["tests internal/parse/**"]],
    ["go test ./...", []],
    ["prove -l t/", ["tests t"]],
    ["cargo test --manifest-path x/Cargo.toml", ["config x/Cargo.toml"]],
    ["cargo test parse_", []],
    ["cargo test --manifest-path=crates/core/Cargo.toml -- --nocapture", ["config crates/core/Cargo.toml"]],
    ["bundle exec rspec spec/models", ["tests spec/models"]],
  ];
  for (const [command, expected] of cases) {
    it(command, () => assert.deepEqual(named(command), expected));
  }
});

describe("pathsNamedBy: scripts a command runs", () => {
  const cases: [string, string[]][] = [
    ["sh scripts/verify-fix.sh", ["script scripts/verify-fix.sh"]],
    ["bash -e ./scripts/check", ["script scripts/check"]],
    ["./check.sh", ["script check.sh"]],
    ["bin/test --fast", ["script bin/test"]],
    ["node tools/x.js --flag", ["script tools/x.js"]],
    ["node --experimental-strip-types tools/check.ts", ["script tools/check.ts"]],
    ["python3 manage.py test polls", ["script manage.py"]],
    ["python -m scripts.check_all", ["script scripts/check_all.py", "script scripts/check_all"]],
    ['bash -c "cd app && ./run-tests.sh"', ["script app/run-tests.sh"]],
    ["sh -c 'node tools/a.js; node tools/b.js'", ["script tools/a.js", "script tools/b.js"]],
    ["source ./env.sh && pytest", ["script env.sh"]],
    ["deno run --allow-read tools/check.ts", ["script tools/check.ts"]],
    ["perl t/basic.t", ["script t/basic.t"]],
    ["make -f build/test.mk check", ["make-target build/test.mk#check"]],
    ["make test", ["make-target Makefile#test"]],
    ["make -C web -j4 test lint", ["make-target web/Makefile#test", "make-target web/Makefile#lint"]],
    ["make", ["make-target Makefile#"]],
    ["make CFLAGS=-O2 check", ["make-target Makefile#check"]],
    // Checked, not run: a syntax check names the code under test, not a script (only a module of the
    // repository that would shadow the checker, as `python -m` looks in the current folder first).
    ["node --check src/slugify.js", []],
    ["node -c src/slugify.js", []],
    ["python3 -m py_compile app/main.py", ["script py_compile.py", "script py_compile"]],
    ["python -m compileall -q app", ["script compileall.py", "script compileall"]],
    ["ruby -c lib/x.rb", []],
    ["perl -c lib/X.pm", []],
    ["bash -n scripts/deploy.sh", []],
    ["sh -n ./install.sh", []],
  ];
  for (const [command, expected] of cases) {
    it(command, () => assert.deepEqual(named(command), expected));
  }
});

describe("pathsNamedBy: what wraps the command", () => {
  const cases: [string, string[]][] = [
    ["CI=1 NODE_ENV=test sh scripts/verify.sh", ["script scripts/verify.sh"]],
    ["env -u HOME CI=1 ./check.sh", ["script check.sh"]],
    ["npx mocha tests.js", ["tests tests.js"]],
    ["npx --yes -p mocha mocha tests.js", ["tests tests.js"]],
    ["npm exec -- mocha test.js", ["tests test.js"]],
    ["pnpm exec vitest run test/a.test.ts", ["tests test/a.test.ts"]],
    ["timeout 60 sh scripts/slow.sh", ["script scripts/slow.sh"]],
    ["time nice -n 5 ./check.sh", ["script check.sh"]],
    ["uv run pytest tests/test_x.py", ["tests tests/test_x.py"]],
    ["poetry run python -m pytest tests", ["script pytest.py", "script pytest", "tests tests"]],
    ["cross-env CI=1 jest test/unit", ["tests test/unit"]],
    ["c8 --reporter=text mocha test/", ["tests test"]],
    [
      "npm ci && npm run build && sh scripts/verify.sh",
      ["package-script package.json#build", "script scripts/verify.sh"],
    ],
    ["./a.sh || ./b.sh; ./c.sh | tee out.log", ["script a.sh", "script b.sh", "script c.sh"]],
    ["cd packages/core && pytest tests", ["tests packages/core/tests"]],
    ["(cd web; ./check.sh)", ["script web/check.sh"]],
    ["sh scripts/verify.sh > out.txt 2>&1", ["script scripts/verify.sh"]],
    ['sh "scripts/with space.sh"', ["script scripts/with space.sh"]],
    ["sh scripts/with\\ space.sh", ["script scripts/with space.sh"]],
  ];
  for (const [command, expected] of cases) {
    it(command, () => assert.deepEqual(named(command), expected));
  }
});

describe("pathsNamedBy: package scripts", () => {
  const packages: Record<string, PackageScripts> = {
    "": {
      test: "mocha tests.js && node tools/check.js",
      pretest: "sh scripts/pre.sh",
      lint: "eslint src",
      verify: "npm run check",
      check: "./check.sh",
      loop: "npm run loop",
    },
    "packages/web": { test: "vitest run test" },
  };
  const cases: [string, string[]][] = [
    [
      "npm test",
      [
        "package-script package.json#test",
        "script scripts/pre.sh",
        "tests tests.js",
        "script tools/check.js",
      ],
    ],
    ["npm run lint", ["package-script package.json#lint"]],
    [
      "npm run verify",
      ["package-script package.json#verify", "package-script package.json#check", "script check.sh"],
    ],
    [
      "yarn test",
      [
        "package-script package.json#test",
        "script scripts/pre.sh",
        "tests tests.js",
        "script tools/check.js",
      ],
    ],
    [
      "pnpm --dir packages/web test",
      ["package-script packages/web/package.json#test", "tests packages/web/test"],
    ],
    [
      "npm --prefix packages/web test",
      ["package-script packages/web/package.json#test", "tests packages/web/test"],
    ],
    [
      "cd packages/web && npm test",
      ["package-script packages/web/package.json#test", "tests packages/web/test"],
    ],
    ["npm run loop", ["package-script package.json#loop"]],
    ["npm run missing", ["package-script package.json#missing"]],
  ];
  for (const [command, expected] of cases) {
    it(command, () => assert.deepEqual(named(command, packages), expected));
  }
});

describe("pathsNamedBy: what it leaves out", () => {
  const cases: [string, string[]][] = [
    ["eslint src", []],
    ["tsc --noEmit -p tsconfig.build.json", ["config tsconfig.build.json"]],
    ["pytest .", []],
    ["sh /usr/local/bin/check.sh", []],
    ["sh ../outside.sh", []],
    ["node $SCRIPT", []],
    ["cat 'unterminated", []],
    ["", []],
    ["echo ok && true", []],
  ];
  for (const [command, expected] of cases) {
    it(JSON.stringify(command), () => assert.deepEqual(named(command), expected));
  }
});
