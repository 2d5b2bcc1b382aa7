/**
 * When an agent CLI can only say it is retrying to reach its model API (Codex prints "Reconnecting..."
 * and retries forever), the turn is an infrastructure failure, not work in progress: the process half
 * stops it within this bound instead of letting it run to the iteration's wall clock. Pure.
 */

/** Stop after this many retry notices in a row, or this long since the first, whichever comes first. */
export const unreachableBound = { notices: 4, silentMs: 60_000 };

/** Tracks an unbroken run of retry notices; `update` is called after every output line. */
export interface UnreachableWatch {
  /** Retry notices in a row now (0 after any other output); `now` in ms. */
  update(notices: number, now: number): void;
  /** The reason to stop the turn, once the bound is crossed; undefined while it is not. */
  verdict(now: number): string | undefined;
}

/** A watch over `name`'s output; `lastNotice` gives the latest notice's text for the message. */
export function watchUnreachable(
  name: string,
  lastNotice: () => string | undefined,
  bound = unreachableBound,
): UnreachableWatch {
  let notices = 0;
  let since: number | undefined;
  return {
    update(count, now) {
      notices = count;
      if (count === 0) since = undefined;
      else since ??= now;
    },
    verdict(now) {
      if (since === undefined || notices === 0) return undefined;
      const elapsed = now - since;
      if (notices < bound.notices && elapsed < bound.silentMs) return undefined;
      const notice = lastNotice();
      return `${name} cannot reach its model API: ${notices} reconnect notice(s) in ${Math.round(elapsed / 1000)}s and nothing else${notice ? ` (last: ${notice})` : ""}`;
    },
  };
}
