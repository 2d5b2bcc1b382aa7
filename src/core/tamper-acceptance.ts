/**
 * `tamper.accept`: the blocking tamper classes a loop accepts explicitly. An accepted blocking flag is
 * ruled on by the verifier like an advisory one, and the report says so prominently; nothing is ever
 * accepted silently. Names are flag kinds (`skip-marker-added`) or the short class names a person writes
 * (`skip-marker`). Pure.
 */
import { type TamperFlagKind, tamperClassOf, tamperFlagKinds } from "./tamper-flag.ts";

/** Short class names, as the issue and the docs write them, for the blocking kinds they stand for. */
const classNames: Readonly<Record<string, TamperFlagKind>> = {
  "skip-marker": "skip-marker-added",
  "deleted-assertion": "assertion-deleted",
  "deleted-test": "test-deleted",
  "excluded-tests": "tests-excluded",
  "loosened-threshold": "threshold-loosened",
  "renamed-test": "test-renamed-out",
  "fewer-tests": "fewer-tests-executed",
};

/** Kinds a spec may never accept: a secret in a change, or a maker grading its own task, is not a judgement call. */
const neverAccepted: ReadonlySet<string> = new Set<TamperFlagKind>([
  "secret-in-change",
  "task-ticked-by-maker",
]);

/** What an accept name means: the blocking kind it accepts, or why it cannot be accepted. */
export function resolveAcceptName(name: string): { kind: TamperFlagKind } | { problem: string } {
  const kind = classNames[name] ?? tamperFlagKinds.find((candidate) => candidate === name);
  if (!kind) {
    const known = [
      ...Object.keys(classNames),
      ...tamperFlagKinds.filter((k) => tamperClassOf(k) === "blocking"),
    ];
    return { problem: `unknown tamper class '${name}' (known: ${known.join(", ")})` };
  }
  if (tamperClassOf(kind) === "advisory")
    return { problem: `'${name}' is advisory already: the verifier rules on it, nothing to accept` };
  if (neverAccepted.has(kind)) return { problem: `'${name}' cannot be accepted` };
  return { kind };
}

/** The flag kinds a spec's `tamper.accept` accepts (names that do not resolve are left out). */
export function acceptedKinds(accept: readonly string[]): Set<string> {
  const kinds = new Set<string>();
  for (const name of accept) {
    const resolved = resolveAcceptName(name);
    if ("kind" in resolved) kinds.add(resolved.kind);
  }
  return kinds;
}
