/**
 * Deferred mode: the first write of a session opens a piece of work, and while it is open the Stop hook
 * does not demand a review at every stop. The review debt never disappears: it falls due when closing
 * is asked, after a number of turns (a turn is one prompt of the user), when the session changes, or
 * after some hours. Pure: time and the session id come in as arguments.
 */

/** The limits of hook mode; each can be set by an environment variable (see `hookLimits`). */
export interface HookLimits {
  /** The review falls due this many turns after the work opened. Default 15. */
  deferTurns: number;
  /** ... or this many milliseconds after it opened. Default 4 h. */
  deferMs: number;
  /** The status lines suggest closing the work from this many turns on. Default 10. */
  suggestCloseTurns: number;
  /** After this many blocks in a row the Stop hook lets Claude stop (circuit breaker). Default 5. */
  maxBlocks: number;
}

export const defaultHookLimits: HookLimits = {
  deferTurns: 15,
  deferMs: 4 * 3600_000,
  suggestCloseTurns: 10,
  maxBlocks: 5,
};

/**
 * The limits, from LOOPWRIGHT_HOOK_DEFER_TURNS, LOOPWRIGHT_HOOK_DEFER_HOURS,
 * LOOPWRIGHT_HOOK_SUGGEST_CLOSE_TURNS and LOOPWRIGHT_HOOK_MAX_BLOCKS where they hold a positive
 * number; the defaults otherwise.
 */
export function hookLimits(env: NodeJS.ProcessEnv): HookLimits {
  const read = (name: string, fallback: number, scale = 1) => {
    const value = Number(env[name]);
    return env[name] !== undefined && Number.isFinite(value) && value > 0 ? value * scale : fallback;
  };
  return {
    deferTurns: Math.round(read("LOOPWRIGHT_HOOK_DEFER_TURNS", defaultHookLimits.deferTurns)),
    deferMs: read("LOOPWRIGHT_HOOK_DEFER_HOURS", defaultHookLimits.deferMs, 3600_000),
    suggestCloseTurns: Math.round(
      read("LOOPWRIGHT_HOOK_SUGGEST_CLOSE_TURNS", defaultHookLimits.suggestCloseTurns),
    ),
    maxBlocks: Math.round(read("LOOPWRIGHT_HOOK_MAX_BLOCKS", defaultHookLimits.maxBlocks)),
  };
}

/** A piece of work opened by a write and not yet closed. */
export interface OpenWork {
  /** ISO time of the first write. */
  openedAt: string;
  /** The Claude Code session that opened it. */
  sessionId: string;
  /** The commit the changes are measured from: HEAD when the work opened. */
  base: string;
  /** Prompts of the user since the work opened. */
  turns: number;
  /** Set by `hook close`: the next stop checks everything. */
  closing: boolean;
  /** Set once another session has been seen: the debt stays due even if the first session comes back. */
  sessionChanged: boolean;
  /** Causes (gate ids, `review`) for which a lesson was already asked during this work. */
  lessonsAsked: string[];
}

export function openWork(sessionId: string, base: string, now: Date): OpenWork {
  return {
    openedAt: now.toISOString(),
    sessionId,
    base,
    turns: 0,
    closing: false,
    sessionChanged: false,
    lessonsAsked: [],
  };
}

/** The work as seen by an event of `sessionId`: a different session marks it (sticky). */
export function seenBySession(work: OpenWork, sessionId: string | undefined): OpenWork {
  if (!sessionId || sessionId === work.sessionId || work.sessionChanged) return work;
  return { ...work, sessionChanged: true };
}

/** One prompt of the user. */
export function countTurn(work: OpenWork, sessionId: string | undefined): OpenWork {
  const seen = seenBySession(work, sessionId);
  return { ...seen, turns: seen.turns + 1 };
}

/** Why the review debt is due, in a few words; undefined while the work is still deferred. */
export function reviewDue(
  work: OpenWork,
  at: { sessionId?: string; now: Date; limits: HookLimits },
): string | undefined {
  if (work.closing) return "closing the work was asked";
  if (work.sessionChanged || (at.sessionId !== undefined && at.sessionId !== work.sessionId))
    return "a new session began";
  if (work.turns >= at.limits.deferTurns) return `${work.turns} turns since the work opened`;
  const openMs = at.now.getTime() - Date.parse(work.openedAt);
  if (openMs >= at.limits.deferMs) return `${formatHours(openMs)} since the work opened`;
  return undefined;
}

function formatHours(milliseconds: number): string {
  const hours = milliseconds / 3600_000;
  return hours >= 1 ? `${hours.toFixed(1)} h` : `${Math.round(milliseconds / 60_000)} min`;
}
