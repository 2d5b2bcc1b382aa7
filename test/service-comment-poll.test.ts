/**
 * The service's comment poll reads no timeline it does not need: it picks its loops from the states the
 * supervisor's watch already keeps (stopped `verified` with a pull request), reads a picked loop's events
 * once per state to find when it stopped, and leaves alone a loop stopped longer ago than its window.
 * Real SQLite store; the forge is not reachable, so a polled loop shows up as a "comments not checked" line.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { parseSpecText } from "../src/core/spec-file.ts";
import { initialState, type LoopState } from "../src/loop/state.ts";
import { createCommentPoll, type PolledLoop } from "../src/service/comment-poll.ts";
import { openStore } from "../src/store/open-store.ts";
import type { Store } from "../src/store/store.ts";
import { waitFor } from "./support/wait-for.ts";

const specText = `name: x
goal: g
repo: .
maker: { engine: scripted, turns: [{ write: { a.txt: "a\\n" } }] }
gates: [{ id: done, kind: tests-pass, run: "true" }]
`;

test("the comment poll reads only the timelines of verified loops with a pull request, once per state", async () => {
  const home = await mkdtemp(join(tmpdir(), "loopwright-comment-poll-"));
  const store = await openStore(home);
  try {
    const { spec } = parseSpecText(specText, "x.yaml", home);
    const base = initialState(spec as never);
    const reads: string[] = [];
    const counted: Store = new Proxy(store, {
      get(target, key, receiver) {
        if (key === "readEvents")
          return (loopId: string, afterSeq?: number) => {
            reads.push(loopId);
            return target.readEvents(loopId, afterSeq);
          };
        const value = Reflect.get(target, key, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const loops: PolledLoop[] = [];
    const add = async (id: string, state: LoopState) => {
      const loop = await store.createLoop({
        id,
        name: id,
        repoRoot: home,
        specPath: join(home, "x.yaml"),
        spec,
      });
      await store.appendEvent(id, "loop_stopped", { reason: "verified" });
      loops.push({ loop, state });
    };
    const verified: LoopState = {
      ...base,
      status: "stopped",
      stopReason: "verified",
      reviewComments: { ...base.reviewComments, pullRequest: { number: 7, sha: "abc" } },
    };
    await add("running", { ...base, status: "running" });
    await add("no-pr", { ...base, status: "stopped", stopReason: "verified" });
    await add("budget", { ...verified, stopReason: "budget_exhausted" } as LoopState);
    await add("watched", verified);

    const lines: string[] = [];
    const poll = createCommentPoll({ store: counted, log: (line) => lines.push(line), everyMs: 0 });
    const pollAndWait = async (now: number) => {
      const before = lines.length;
      poll(now, loops);
      await waitFor(() => lines.length > before, "a poll's log line");
      await new Promise((done) => setTimeout(done, 200)); // the poll ends after its last line
    };
    await pollAndWait(Date.now());
    assert.deepEqual(reads, ["watched"], "only the verified loop with a pull request is read");
    assert.match(lines.join("\n"), /^watched: comments not checked/m);

    // The same state again: its stop time is known, nothing is read; the forge is asked again.
    const polled = lines.length;
    await pollAndWait(Date.now() + 1);
    assert.deepEqual(reads, ["watched"]);
    assert.ok(lines.length > polled);

    // A new state (an event folded in) is read again.
    loops[3] = { ...loops[3], state: { ...verified } };
    await pollAndWait(Date.now() + 2);
    assert.deepEqual(reads, ["watched", "watched"]);
    // Eight days later the loop is past its window (a week by default): left alone.
    const quiet = lines.length;
    poll(Date.now() + 8 * 24 * 3_600_000, loops);
    await new Promise((done) => setTimeout(done, 300));
    assert.equal(lines.length, quiet, lines.slice(quiet).join("\n"));
    assert.deepEqual(reads, ["watched", "watched"]);
  } finally {
    await store.close();
    await rm(home, { recursive: true, force: true });
  }
});
