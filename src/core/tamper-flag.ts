/**
 * A tamper flag: one sign, found by screening a change or comparing its gate runs with the base
 * commit's, that the maker may have weakened the checks rather than met the goal. Flags come in two
 * classes (see `tamperClassOf`): **blocking** flags fail the iteration whatever the verifier rules,
 * unless the spec accepts their kind explicitly (`tamper.accept`); **advisory** flags go to the
 * verifier, which must rule on each.
 */

/** What a flag points at. */
export type TamperFlagKind =
  /** A new skip, only, todo, xfail or ignore marker (a test that will no longer run, or the only one). */
  | "skip-marker-added"
  /** An assertion removed and not re-added anywhere in the change. */
  | "assertion-deleted"
  /** A coverage minimum, timeout, tolerance, precision or warning limit made more permissive. */
  | "threshold-loosened"
  /** A test function or case removed and not re-added (a rename with the same body is not a deletion). */
  | "test-deleted"
  /** A runner or coverage configuration that excludes, ignores or deselects more tests or files. */
  | "tests-excluded"
  /** A test file renamed or moved to a path its runner no longer discovers. */
  | "test-renamed-out"
  /** A script a gate runs (`sh scripts/verify.sh`, the package.json script of `npm test`) changed: what the gate means changed. */
  | "gate-script-changed"
  /** Test code changed in a file the path patterns cannot see as a test (a Rust `#[cfg(test)]` module). */
  | "inline-tests-changed"
  /** Fewer tests ran than in the baseline. */
  | "fewer-tests-executed"
  /** A test that failed on the base commit is no longer executed. */
  | "baseline-failure-not-executed"
  /** A test that failed on the base commit passes, and the change touched only test files. */
  | "test-only-fix"
  /** A value loopwright knows to be a secret appears in the change. */
  | "secret-in-change"
  /** strategy tasks: the maker marked a task done in the task file; only loopwright ticks a task, once verified. */
  | "task-ticked-by-maker"
  /** strategy metric: a random seed, a sample or evaluation count, or evaluation data changed. */
  | "metric-evaluation-changed"
  /** A file of the tamper set changed (tests, runner and build configuration, manifests, CI, scripts gates run). */
  | "tamper-file";

/** All flag kinds, in the order a report lists them. */
export const tamperFlagKinds: readonly TamperFlagKind[] = [
  "secret-in-change",
  "task-ticked-by-maker",
  "metric-evaluation-changed",
  "skip-marker-added",
  "assertion-deleted",
  "test-deleted",
  "tests-excluded",
  "test-renamed-out",
  "gate-script-changed",
  "threshold-loosened",
  "inline-tests-changed",
  "fewer-tests-executed",
  "baseline-failure-not-executed",
  "test-only-fix",
  "tamper-file",
];

/** `blocking`: decided by loopwright, whatever the verifier says; `advisory`: the verifier rules. */
export type TamperClass = "blocking" | "advisory";

const advisoryKinds: ReadonlySet<string> = new Set<TamperFlagKind>(["inline-tests-changed", "tamper-file"]);

/**
 * The class of a flag kind. Unknown kinds (a newer timeline read by an older loopwright) are blocking:
 * a check that cannot be understood must not be waved through.
 */
export function tamperClassOf(kind: string): TamperClass {
  return advisoryKinds.has(kind) ? "advisory" : "blocking";
}

/**
 * One flag. `file` is repository-relative (absent only for flags about a whole run, such as
 * `fewer-tests-executed`). `line` is 1-based: in the new version of the file when `side` is `"new"`
 * (something added), in the base version when `side` is `"old"` (something removed). `detail` is one
 * line a person reads, quoting the offending code trimmed to a bounded length.
 */
export interface TamperFlag {
  kind: TamperFlagKind;
  file?: string;
  line?: number;
  side?: "old" | "new";
  detail: string;
}

/** Longest code excerpt a flag quotes, in characters. */
const excerptLength = 100;

/** `text` trimmed, inner whitespace collapsed, cut to a bounded length with an ellipsis. */
export function excerpt(text: string): string {
  const compact = text.trim().replace(/\s+/g, " ");
  return compact.length > excerptLength ? `${compact.slice(0, excerptLength - 1)}…` : compact;
}
