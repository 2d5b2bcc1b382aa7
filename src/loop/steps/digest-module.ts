/**
 * The failure digest (a parser per test runner's format, a few dozen modules), imported once per
 * process, when a step first asks for it: the gates' step once its first gate's process has started,
 * so that the import (which holds the process's turn while it loads the module graph, ~10 ms in a
 * fresh controller) runs beside the gate. Loaded in `prepare` instead, it held back the git requests
 * that the checkouts wait on. A failed load is not lost: the digest of a gate's log rethrows it.
 */
let digestModule: Promise<typeof import("../../gates/digest/index.ts")> | undefined;

export function loadDigest(): Promise<typeof import("../../gates/digest/index.ts")> {
  digestModule ??= import("../../gates/digest/index.ts");
  return digestModule;
}
