import assert from "node:assert/strict";

/** `before` with its first `from` replaced by `to`; asserts that `from` occurs, so an edit never silently misses. */
export function replaced(before: string, from: string, to: string): string {
  assert.ok(before.includes(from), from);
  return before.replace(from, to);
}
