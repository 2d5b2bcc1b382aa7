/**
 * The result of looking at a project folder: which ecosystems it uses and, for each, the gates and
 * setup commands loopwright proposes. Plain data, rendered into loop.yaml as comments and entries.
 */

/** The gate kinds `loopwright init` proposes; the others (eval-script, agent-check) are written by hand. */
export type DetectedGateKind = "tests-pass" | "build-succeeds" | "lint-clean";

/** One proposed gate: a pinned shell command run from the repository root, passing on exit 0. */
export interface DetectedGate {
  /** A spec gate id ([a-z0-9][a-z0-9_-]*), unique within the whole detection. */
  id: string;
  kind: DetectedGateKind;
  run: string;
  /** Where the command came from, in a few words (for example "package.json scripts.test"). */
  source: string;
}

export type EcosystemName = "node" | "python" | "rust" | "go" | "make";

/** What one ecosystem's manifest says about how to test, build and lint the project. */
export interface EcosystemDetection {
  ecosystem: EcosystemName;
  /** A one-line summary for the spec's header, for example "package.json (pnpm)". */
  summary: string;
  /** Commands that prepare a fresh checkout, in order (for example "npm ci"). */
  setup: string[];
  gates: DetectedGate[];
  /** Anything the user should know, such as a manifest that could not be parsed. */
  notes: string[];
}

/** Everything detected in a folder; `gates` and `setup` merge the ecosystems', with distinct ids. */
export interface Detection {
  ecosystems: EcosystemDetection[];
  setup: string[];
  gates: DetectedGate[];
}
