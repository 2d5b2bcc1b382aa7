import type { DetectedGate, EcosystemDetection } from "./detection.ts";
import { hasEntry, type ProjectFiles } from "./project-files.ts";

/** The package managers whose commands `loopwright init` writes. */
export type PackageManager = "npm" | "pnpm" | "yarn" | "bun";

const lockfiles: { name: string; manager: PackageManager }[] = [
  { name: "bun.lock", manager: "bun" },
  { name: "bun.lockb", manager: "bun" },
  { name: "pnpm-lock.yaml", manager: "pnpm" },
  { name: "yarn.lock", manager: "yarn" },
  { name: "package-lock.json", manager: "npm" },
  { name: "npm-shrinkwrap.json", manager: "npm" },
];

/** The scripts that become gates, in the order they are written. */
const scriptGates: { scripts: string[]; id: string; kind: DetectedGate["kind"] }[] = [
  { scripts: ["test"], id: "tests", kind: "tests-pass" },
  { scripts: ["build"], id: "build", kind: "build-succeeds" },
  { scripts: ["typecheck", "type-check"], id: "typecheck", kind: "build-succeeds" },
  { scripts: ["lint"], id: "lint", kind: "lint-clean" },
];

interface PackageManifest {
  scripts?: Record<string, unknown>;
  packageManager?: unknown;
  dependencies?: Record<string, unknown>;
  devDependencies?: Record<string, unknown>;
  optionalDependencies?: Record<string, unknown>;
}

/**
 * Gates from package.json scripts (test, build, typecheck or type-check, lint), run through the
 * project's package manager, and the install command as setup. The manager is the `packageManager`
 * field when set, else the one whose lockfile exists, else npm. npm's placeholder test script
 * ("Error: no test specified") counts as no test script. Undefined when there is no package.json.
 */
export function detectNode(files: ProjectFiles): EcosystemDetection | undefined {
  const text = files.contents["package.json"];
  if (text === undefined) return undefined;
  const manifest = parseManifest(text);
  if (!manifest) {
    return {
      ecosystem: "node",
      summary: "package.json",
      setup: [],
      gates: [],
      notes: ["package.json is not a valid JSON object, so its scripts were not read."],
    };
  }
  const manager = packageManagerOf(files, manifest);
  const scripts = manifest.scripts ?? {};
  const gates: DetectedGate[] = [];
  for (const candidate of scriptGates) {
    const script = candidate.scripts.find((name) => isRealScript(name, scripts[name]));
    if (script === undefined) continue;
    gates.push({
      id: candidate.id,
      kind: candidate.kind,
      run: runScriptCommand(manager, script),
      source: `package.json scripts.${script}`,
    });
  }
  const install = installCommand(files, manager, manifest);
  return {
    ecosystem: "node",
    summary: `package.json (${manager})`,
    setup: install ? [install] : [],
    gates,
    notes: [],
  };
}

/**
 * The command that runs package.json script `script` with `manager`. bun always gets `bun run`:
 * `bun test` would start bun's own test runner instead of the script.
 */
export function runScriptCommand(manager: PackageManager, script: string): string {
  if (script === "test" && manager !== "bun") return `${manager} test`;
  return `${manager} run ${script}`;
}

function parseManifest(text: string): PackageManifest | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as PackageManifest)
      : undefined;
  } catch {
    return undefined;
  }
}

function isRealScript(name: string, script: unknown): boolean {
  if (typeof script !== "string" || script.trim() === "") return false;
  return !(name === "test" && /no test specified/i.test(script));
}

function packageManagerOf(files: ProjectFiles, manifest: PackageManifest): PackageManager {
  const declared = typeof manifest.packageManager === "string" ? manifest.packageManager.split("@")[0] : "";
  if (declared === "npm" || declared === "pnpm" || declared === "yarn" || declared === "bun") return declared;
  return lockfiles.find((lockfile) => hasEntry(files, lockfile.name))?.manager ?? "npm";
}

function installCommand(
  files: ProjectFiles,
  manager: PackageManager,
  manifest: PackageManifest,
): string | undefined {
  const locked = lockfiles.some((lockfile) => lockfile.manager === manager && hasEntry(files, lockfile.name));
  if (!locked) return hasDependencies(manifest) ? `${manager} install` : undefined;
  switch (manager) {
    case "npm":
      return "npm ci";
    case "pnpm":
      return "pnpm install --frozen-lockfile";
    case "yarn":
      // Yarn 2+ (recognised by its .yarnrc.yml) renamed the flag.
      return hasEntry(files, ".yarnrc.yml") ? "yarn install --immutable" : "yarn install --frozen-lockfile";
    case "bun":
      return "bun install --frozen-lockfile";
  }
}

function hasDependencies(manifest: PackageManifest): boolean {
  return [manifest.dependencies, manifest.devDependencies, manifest.optionalDependencies].some(
    (group) => typeof group === "object" && group !== null && Object.keys(group).length > 0,
  );
}
