/**
 * The failure digest (a parser per test runner's format, a few dozen modules), imported once per
 * process, when a step first asks for it: the gates' step right after its first gate's process has
 * started, and `prepare` of a loop whose base gates come next (its loading then fills prepare's waits
 * on git, rather than coming after the base gates' first process). A failed load is not lost: the
 * digest of a gate's log rethrows it.
 */
let digestModule: Promise<typeof import("../../gates/digest/index.ts")> | undefined;

export function loadDigest(): Promise<typeof import("../../gates/digest/index.ts")> {
  digestModule ??= import("../../gates/digest/index.ts");
  return digestModule;
}
