import type { ModelRequest } from "./model-request.ts";
import type { Conversation, Script, Turn } from "./script.ts";

/** What the script says to do with one request. */
export type Selection =
  /** Answer with the turn's content (after its delay). */
  | { type: "turn"; conversation: string; index: number; turn: Turn }
  /** Fail with the turn's error (after its delay). */
  | { type: "error"; conversation: string; index: number; turn: Turn; error: NonNullable<Turn["error"]> }
  /** The conversation has no turn at this index. */
  | { type: "script_ended"; conversation: string; index: number; turnCount: number }
  /** Every conversation has a marker and none is in the request. */
  | { type: "no_conversation"; index: number; markers: string[] };

/**
 * Counts the error answers already given per conversation and turn index: the only state the server
 * keeps, so that `error: { times: N }` fails the first N requests landing on a turn.
 */
export type ErrorTally = Map<string, number>;

/**
 * Picks the answer for `request`: the conversation whose marker is in the request's opening (the
 * first such in script order, else the first without a marker), and in it the turn whose index is the
 * number of assistant turns already in the request. Records an error answer in `errors`.
 */
export function selectTurn(script: Script, request: ModelRequest, errors: ErrorTally): Selection {
  const index = request.assistantTurns;
  const conversation = conversationFor(script, request);
  if (!conversation) {
    const markers = script.conversations.flatMap((candidate) =>
      candidate.when ? [candidate.when.contains] : [],
    );
    return { type: "no_conversation", index, markers };
  }
  const turn = conversation.turns[index];
  if (!turn)
    return {
      type: "script_ended",
      conversation: conversation.name,
      index,
      turnCount: conversation.turns.length,
    };
  if (turn.error) {
    const key = `${conversation.name}#${index}`;
    const served = errors.get(key) ?? 0;
    if (turn.error.times === undefined || served < turn.error.times) {
      errors.set(key, served + 1);
      return { type: "error", conversation: conversation.name, index, turn, error: turn.error };
    }
  }
  return { type: "turn", conversation: conversation.name, index, turn };
}

function conversationFor(script: Script, request: ModelRequest): Conversation | undefined {
  return (
    script.conversations.find(
      (conversation) => conversation.when && request.opening.includes(conversation.when.contains),
    ) ?? script.conversations.find((conversation) => !conversation.when)
  );
}
