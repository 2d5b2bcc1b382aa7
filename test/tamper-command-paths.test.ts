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
    // A folder: mocha runs every file in it; node, pytest, jest, vitest, go, prove and rspec pick the
    // tests in it by name (the default patterns know those), and its other files are code, not tests.
    ["mocha checks", ["tests checks"]],
    ["mocha --recursive 'checks/**/*.js'", ["tests checks/**/*.js"]],
    ["node --test test/", []],
    ["jest src", []],
    ["go test ./internal/parse/...", []],
    ["prove -l t/", []],
    ["node --test", []],
    ["node --test test/add.js", ["tests test/add.js"]],
    ["pytest tests/test_x.py", ["tests tests/test_x.py"]],
    ["pytest tests/test_x.py::test_add -q", ["tests tests/test_x.py"]],
    ["python -m unittest test.py", ["script unittest.py", "script unittest", "tests test.py"]],
    [
      "python3 -m unittest tests.test_math",
      ["script unittest.py", "script unittest", "tests tests/test_math.py"],
    ],
    ["python -m pytest -k 'not slow' -p no:cacheprovider tests", ["script pytest.py", "script pytest"]],
    ["pytest --maxfail 1 --timeout=30 tests/unit/test_a.py", ["tests tests/unit/test_a.py"]],
    ["jest --config jest.ci.js src/parse.check.js", ["config jest.ci.js", "tests src/parse.check.js"]],
    ["vitest run test/unit/parse.ts", ["tests test/unit/parse.ts"]],
    [
      "mocha --require test/setup.js 'test/**/*.spec.js'",
      ["config test/setup.js", "tests test/**/*.spec.js"],
    ],
    ["mocha -r ts-node/register -R dot lib/checks.js", ["tests lib/checks.js"]],
    ["go test ./...", []],
    ["cargo test --manifest-path x/Cargo.toml", ["config x/Cargo.toml"]],
    ["cargo test parse_", []],
    ["cargo test --manifest-path=crates/core/Cargo.toml -- --nocapture", ["config crates/core/Cargo.toml"]],
    ["bundle exec rspec spec/models/user_spec.rb", ["tests spec/models/user_spec.rb"]],
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
    ["/bin/sh scripts/verify.sh", ["script scripts/verify.sh"]],
    ["/usr/bin/env python3 tools/check.py", ["script tools/check.py"]],
    ["/usr/local/bin/node --test test/a.js", ["tests test/a.js"]],
    ["python3 -mpytest tests/a.py", ["script pytest.py", "script pytest", "tests tests/a.py"]],
    ["python3 -Werror -munittest test.py", ["script unittest.py", "script unittest", "tests test.py"]],
    ["env -u HOME CI=1 ./check.sh", ["script check.sh"]],
    ["npx mocha tests.js", ["tests tests.js"]],
    ["npx --yes -p mocha mocha tests.js", ["tests tests.js"]],
    ["npm exec -- mocha test.js", ["tests test.js"]],
    ["pnpm exec vitest run test/a.test.ts", ["tests test/a.test.ts"]],
    ["timeout 60 sh scripts/slow.sh", ["script scripts/slow.sh"]],
    ["time nice -n 5 ./check.sh", ["script check.sh"]],
    ["uv run pytest tests/test_x.py", ["tests tests/test_x.py"]],
    ["poetry run python -m pytest tests", ["script pytest.py", "script pytest"]],
    ["cross-env CI=1 mocha test/unit", ["tests test/unit"]],
    ["c8 --reporter=text mocha test/", ["tests test"]],
    [
      "npm ci && npm run build && sh scripts/verify.sh",
      ["package-script package.json#build", "script scripts/verify.sh"],
    ],
    ["./a.sh || ./b.sh; ./c.sh | tee out.log", ["script a.sh", "script b.sh", "script c.sh"]],
    ["cd packages/core && mocha tests", ["tests packages/core/tests"]],
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
    "packages/web": { test: "mocha test" },
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
    // A utility's short option is no configuration: the file a gate checks is the work, not the check.
    ["test -f answer.txt", []],
    ["[ -f count.txt ]", []],
    ["grep -f patterns.txt -r src", []],
    ["tar -f out.tar -c dist", []],
    ["node print.js; test -f done.txt", ["script print.js"]],
    ["eslint -c .eslintrc.json src", ["config .eslintrc.json"]],
    ["ruff check --config ruff.toml", ["config ruff.toml"]],
  ];
  for (const [command, expected] of cases) {
    it(JSON.stringify(command), () => assert.deepEqual(named(command), expected));
  }
});
