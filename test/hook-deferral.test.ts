/** Deferred mode (when the review debt falls due) and the status lines (pure). */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { HookGate } from "../src/hooks/hook-spec.ts";
import { statusLines } from "../src/hooks/templates/status-lines.ts";
import {
  countTurn,
  defaultHookLimits,
  hookLimits,
  type OpenWork,
  openWork,
  reviewDue,
  seenBySession,
} from "../src/hooks/work/deferred-work.ts";

const opened = new Date("2026-11-30T10:00:00Z");
const limits = defaultHookLimits;
const at = (work: OpenWork, minutes = 0, sessionId = "s1") =>
  reviewDue(work, { sessionId, now: new Date(opened.getTime() + minutes * 60_000), limits });
const turns = (count: number, work = openWork("s1", "abc", opened)) => {
  let current = work;
  for (let turn = 0; turn < count; turn++) current = countTurn(current, "s1");
  return current;
};

describe("review debt", () => {
  test("is deferred while the work is young", () => {
    assert.equal(at(turns(14), 239), undefined);
  });

  test("falls due after 15 turns", () => {
    assert.equal(at(turns(15)), "15 turns since the work opened");
  });

  test("falls due after 4 hours", () => {
    assert.equal(at(turns(1), 240), "4.0 h since the work opened");
  });

  test("falls due when the session changes, and stays due when the first session comes back", () => {
    const work = openWork("s1", "abc", opened);
    assert.equal(at(work, 0, "s2"), "a new session began");
    const seen = seenBySession(work, "s2");
    assert.equal(at(seen, 0, "s1"), "a new session began");
    assert.equal(at(countTurn(work, "s2"), 0, "s1"), "a new session began");
  });

  test("falls due at once when closing is asked", () => {
    assert.equal(at({ ...openWork("s1", "abc", opened), closing: true }), "closing the work was asked");
  });

  test("limits come from the environment, defaults otherwise", () => {
    assert.deepEqual(hookLimits({}), defaultHookLimits);
    const custom = hookLimits({
      LOOPWRIGHT_HOOK_DEFER_TURNS: "3",
      LOOPWRIGHT_HOOK_DEFER_HOURS: "0.5",
      LOOPWRIGHT_HOOK_MAX_BLOCKS: "2",
      LOOPWRIGHT_HOOK_SUGGEST_CLOSE_TURNS: "nonsense",
    });
    assert.deepEqual(custom, { deferTurns: 3, deferMs: 1_800_000, suggestCloseTurns: 10, maxBlocks: 2 });
  });
});

describe("status lines", () => {
  const gates: HookGate[] = [
    {
      id: "tests",
      kind: "tests-pass",
      run: "npm test",
      timeoutMs: 1,
      parallel: true,
      required: true,
      timing: "every-stop",
    },
    {
      id: "build",
      kind: "build-succeeds",
      run: "npm run build",
      timeoutMs: 1,
      parallel: true,
      required: true,
      timing: "on-close",
    },
  ];
  const facts = {
    repository: "shop",
    gates,
    limits,
    closeCommand: "/r/.loopwright/hook close",
    reviewerAgent: "loopwright-reviewer",
  };

  test("without open work: two lines, the plan of the definition of done", () => {
    const lines = statusLines(facts).split("\n");
    assert.equal(lines.length, 2);
    assert.match(lines[0], /repository shop; no open work/);
    assert.match(lines[1], /gates tests at every stop, build when the work closes, then a review/);
  });

  test("deferred: files changed, turns since the work opened, when the review falls due", () => {
    const lines = statusLines({ ...facts, work: turns(3), changedFiles: 4 }).split("\n");
    assert.equal(lines.length, 2);
    assert.match(lines[0], /4 files changed since the work opened 3 turns ago \(review deferred\)/);
    assert.match(lines[1], /falls due in 12 turns, at a new session, or 4 h after/);
  });

  test("past the threshold it tells the agent to suggest closing the work, with the command", () => {
    const text = statusLines({ ...facts, work: turns(10), changedFiles: 1 });
    assert.match(text, /suggest to the user to close it now \(run `\/r\/.loopwright\/hook close`/);
    assert.match(text, /falls due anyway in 5 turns/);
  });

  test("when due, it says what the next stop will ask", () => {
    const text = statusLines({
      ...facts,
      work: turns(15),
      changedFiles: 2,
      due: "15 turns since the work opened",
    });
    assert.match(text, /Review due \(15 turns since the work opened\)/);
    assert.match(text, /loopwright-reviewer subagent must find no \[CRITICAL\]/);
  });
});
