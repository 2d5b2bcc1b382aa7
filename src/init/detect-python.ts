import type { DetectedGate, EcosystemDetection } from "./detection.ts";
import { hasEntry, type ProjectFiles } from "./project-files.ts";
import { hasTomlTable, mentionsDependency, tomlTable, tomlTableSetsKey } from "./toml-tables.ts";

/** How Python tools are started: plain `python3`, or through the manager that owns the environment. */
interface PythonRunner {
  name: string;
  /** Prefix for a tool's own command line (`ruff check .`). */
  tool: string;
  /** How to start the interpreter (`python3 -m pytest`). */
  python: string;
  setup: string[];
}

const plainRunner: PythonRunner = { name: "python3", tool: "", python: "python3", setup: [] };
const uvRunner: PythonRunner = { name: "uv", tool: "uv run ", python: "uv run python", setup: ["uv sync"] };
const poetryRunner: PythonRunner = {
  name: "poetry",
  tool: "poetry run ",
  python: "poetry run python",
  setup: ["poetry install"],
};

/** Top-level names that make a folder without a manifest a Python project with tests. */
const testScript = /^(test_\w+|\w+_test)\.py$/;
const pytestConfigs = ["pytest.ini", "conftest.py"];

/**
 * A Python folder without a manifest (scripts and their tests side by side): pytest when it is
 * configured (pytest.ini, conftest.py) or tests live in a tests/ folder, else unittest discovery,
 * which finds `test_*.py` beside the code. Undefined for a folder with no test in sight.
 */
function detectLoosePython(files: ProjectFiles): EcosystemDetection | undefined {
  const python = files.entries.some((name) => name.endsWith(".py"));
  const testFiles = files.entries.filter((name) => testScript.test(name));
  const pytest = pytestConfigs.some((name) => hasEntry(files, name)) || (python && hasEntry(files, "tests/"));
  if (!pytest && testFiles.length === 0) return undefined;
  const tests: DetectedGate = pytest
    ? { id: "tests", kind: "tests-pass", run: "python3 -m pytest", source: "pytest (no manifest)" }
    : {
        id: "tests",
        kind: "tests-pass",
        run: "python3 -m unittest",
        source: `unittest discovery of ${testFiles.slice(0, 3).join(", ")} (no manifest, no pytest found)`,
      };
  return {
    ecosystem: "python",
    summary: "Python files without a manifest",
    setup: [],
    gates: [tests],
    notes: [],
  };
}

/**
 * Gates for a Python project (pyproject.toml, setup.py or setup.cfg): pytest when it is configured,
 * it or one of its plugins is a dependency, or a tests/ folder exists, else unittest discovery; ruff
 * (else flake8) when configured, as lint-clean; mypy when configured, as a build-succeeds type
 * check. With uv.lock or poetry.lock the commands run through uv or poetry and setup syncs the
 * environment. Undefined when the folder has none of those manifests.
 */
export function detectPython(files: ProjectFiles): EcosystemDetection | undefined {
  const manifests = ["pyproject.toml", "setup.py", "setup.cfg"].filter((name) => hasEntry(files, name));
  if (manifests.length === 0) return detectLoosePython(files);
  const pyproject = files.contents["pyproject.toml"] ?? "";
  const setupConfig = files.contents["setup.cfg"] ?? "";
  const toxConfig = files.contents["tox.ini"] ?? "";
  const runner = hasEntry(files, "uv.lock")
    ? uvRunner
    : hasEntry(files, "poetry.lock")
      ? poetryRunner
      : plainRunner;

  const gates: DetectedGate[] = [];
  const pytest =
    hasTomlTable(pyproject, "tool.pytest") ||
    mentionsDependency(pyproject, "pytest") ||
    /["']pytest-[\w-]+/.test(pyproject) || // a plugin such as pytest-cov brings pytest with it
    ["pytest.ini", "conftest.py", "tests/"].some((name) => hasEntry(files, name)) ||
    setupConfig.includes("[tool:pytest]") ||
    toxConfig.includes("[pytest]");
  gates.push(
    pytest
      ? { id: "tests", kind: "tests-pass", run: `${runner.python} -m pytest`, source: "pytest" }
      : {
          id: "tests",
          kind: "tests-pass",
          run: `${runner.python} -m unittest`,
          source: "unittest discovery (no pytest found)",
        },
  );

  const ruff =
    hasTomlTable(pyproject, "tool.ruff") ||
    mentionsDependency(pyproject, "ruff") ||
    hasEntry(files, "ruff.toml") ||
    hasEntry(files, ".ruff.toml");
  const flake8 =
    hasEntry(files, ".flake8") ||
    setupConfig.includes("[flake8]") ||
    toxConfig.includes("[flake8]") ||
    mentionsDependency(pyproject, "flake8");
  if (ruff) gates.push({ id: "lint", kind: "lint-clean", run: `${runner.tool}ruff check .`, source: "ruff" });
  else if (flake8)
    gates.push({ id: "lint", kind: "lint-clean", run: `${runner.python} -m flake8`, source: "flake8" });

  const mypyTable = tomlTable(pyproject, "tool.mypy");
  const mypy =
    mypyTable !== undefined ||
    mentionsDependency(pyproject, "mypy") ||
    hasEntry(files, "mypy.ini") ||
    hasEntry(files, ".mypy.ini") ||
    setupConfig.includes("[mypy]");
  if (mypy) {
    // Without a configured `files` list, mypy needs to be told what to check.
    const target = mypyTable !== undefined && tomlTableSetsKey(mypyTable, "files") ? "" : " .";
    gates.push({
      id: "typecheck",
      kind: "build-succeeds",
      run: `${runner.python} -m mypy${target}`,
      source: "mypy",
    });
  }

  return {
    ecosystem: "python",
    summary: `${manifests.join(", ")} (${runner.name})`,
    setup: runner.setup,
    gates,
    notes: [],
  };
}
