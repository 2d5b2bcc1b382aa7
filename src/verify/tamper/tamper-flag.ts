/**
 * A tamper flag: one sign, found by screening a change, that the maker may have weakened the checks
 * rather than met the goal. Flags never fail an iteration by themselves; the verifier must rule on each.
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
  /** Test code changed in a file the path patterns cannot see as a test (a Rust `#[cfg(test)]` module). */
  | "inline-tests-changed"
  /** Fewer tests ran than in the baseline. */
  | "fewer-tests-executed";

/** All flag kinds, in the order a report lists them. */
export const tamperFlagKinds: readonly TamperFlagKind[] = [
  "skip-marker-added",
  "assertion-deleted",
  "test-deleted",
  "tests-excluded",
  "threshold-loosened",
  "inline-tests-changed",
  "fewer-tests-executed",
];

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
