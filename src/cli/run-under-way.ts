/**
 * The moment a foreground `run`'s maker turn is under way (run-loop-command.ts: its command runs by
 * then), for work kept off the way to the maker's first command: bin/loopwright.js writes the CLI
 * bundle's code cache then, so that it holds what that way compiled, not what the rest of the run did.
 */
let listeners: (() => void)[] = [];

/** Calls `listener` once, at the next `runUnderWay()` of this process; never if there is none. */
export function whenRunUnderWay(listener: () => void): void {
  listeners.push(listener);
}

/** Says that the run's maker turn is under way: each listener waiting runs once, in order. */
export function runUnderWay(): void {
  const waiting = listeners;
  listeners = [];
  for (const listener of waiting) listener();
}
