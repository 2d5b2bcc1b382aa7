/**
 * Context management over real HTTP, for each wire protocol: a 40-turn session whose every turn reads a
 * large file, with the model's window set to 16k tokens. Every request the mock-model server logs stays
 * under the window, old tool outputs are shortened and older turns summarized by a model call, and a
 * fact the model noted at turn 3 is still in the request at turn 35.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { LoggedRequest } from "../src/mock-model/request-log.ts";
import { type MockModel, startMockModel } from "../src/mock-model/server.ts";
import {
  type ConversationInput,
  conversation,
  createWorkspace,
  type Protocol,
  protocols,
  runScenario,
  type TurnInput,
} from "./support/agent-harness.ts";

const window = 16_000;
const turnCount = 40;
const fact = "the release codename is amber-falcon-42";
/** A distinct phrase of the summary call's system prompt: it selects the summarizer's conversation. */
const summaryMarker = "You compress the earlier part of a coding agent's session";

const bigFile = Array.from({ length: 100 }, (_, line) => `line ${line}: ${"data ".repeat(11)}`).join("\n");

function sessionTurns(): TurnInput[] {
  const turns: TurnInput[] = [];
  for (let index = 0; index < turnCount - 1; index++) {
    const note = index === 3 ? `Noted: ${fact}; I need it at the end. ` : "";
    turns.push({
      text: `Turn ${index}: ${note}${"Looking at the data again to compare it with what I saw before. ".repeat(14)}`,
      tools: [{ name: "read", input: { path: "big.txt" } }],
    });
  }
  turns.push({ text: "Finished." });
  return turns;
}

const conversations: ConversationInput[] = [
  // First: a summary request's transcript also holds the session's own marker.
  {
    name: "summarizer",
    when: { contains: summaryMarker },
    turns: [
      {
        text: `Task: read big.txt repeatedly and compare. Facts: ${fact}. Done so far: many reads of big.txt.`,
      },
    ],
  },
  ...protocols.map((protocol) => conversation(protocol, "long-session", sessionTurns())),
];

let server: MockModel;
before(async () => {
  server = await startMockModel({ script: { conversations } });
});
after(() => server.close());

/** The mock server's own token estimate of a request: its JSON body's size / 4. */
const tokensOf = (request: LoggedRequest) => Math.ceil(JSON.stringify(request.body).length / 4);

describe("compaction on a long session, window 16k tokens", () => {
  for (const protocol of protocols) {
    it(`${protocol}: stays under the window and keeps the turn-3 fact to turn 35`, async () => {
      const workspace = await createWorkspace({ "big.txt": bigFile });
      try {
        const first = server.requests.length;
        const { result, events } = await runScenario({
          protocol,
          url: server.url,
          name: "long-session",
          workspace,
          task: "Read big.txt again and again and compare.",
          contextWindow: window,
        });
        const requests = server.requests
          .slice(first)
          .filter((request) => request.protocol === (protocol as Protocol));
        const session = requests.filter((request) => request.conversation === `${protocol}/long-session`);
        const summaries = requests.filter((request) => request.conversation === "summarizer");

        assert.equal(result.endReason, "completed", result.error);
        assert.equal(result.turns, turnCount);
        assert.deepEqual(
          session.map((request) => request.turn),
          Array.from({ length: turnCount }, (_, index) => index),
          "every scripted turn was served in order, compaction or not",
        );
        const largest = Math.max(...requests.map(tokensOf));
        assert.ok(largest < window, `the largest request was ${largest} tokens`);
        const methods = events.flatMap((event) => (event.type === "context_compacted" ? [event.method] : []));
        assert.ok(methods.includes("tool_outputs_shortened"), "old tool outputs were shortened");
        assert.ok(methods.includes("turns_summarized"), "older turns were summarized");
        assert.ok(summaries.length >= 1);
        assert.ok(
          summaries.every((request) => JSON.stringify(request.body).includes(fact)),
          "every summary call was shown the fact",
        );
        const turn35 = session.find((request) => request.turn === 35);
        assert.ok(
          turn35 && JSON.stringify(turn35.body).includes(fact),
          "the fact is in the request at turn 35",
        );
        assert.ok(
          !JSON.stringify(turn35.body).includes("Turn 3: Noted"),
          "turn 3 itself was summarized away",
        );
      } finally {
        await workspace.cleanup();
      }
    });
  }
});
