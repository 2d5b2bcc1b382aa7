/**
 * The compaction summary: a separate model call that condenses the older part of a session, and the
 * message that stands in for those turns afterwards.
 */

/** The system prompt of the summary call. */
export const summarySystemPrompt = `You compress the earlier part of a coding agent's session so that it can go on working with less
context. Write a summary that lets the agent continue without the original turns:
- the task and every constraint or requirement stated so far;
- facts learned that are still needed: names, paths, line numbers, values, commands and their results, errors;
- what has been changed so far (files and how) and what was tried and failed;
- what remains to do.
Keep every exact value (identifiers, numbers, paths, messages) verbatim. Be concise; no preamble.`;

/** The user message of the summary call: the transcript to condense. */
export function summaryRequest(transcript: string): string {
  return `Summarize this part of the session:\n\n${transcript}`;
}

/** The message that replaces the summarized turns in the conversation. */
export function summaryMessage(summary: string, turns: number): string {
  return `<conversation-summary>
The earlier part of this session (${turns} model turn${turns === 1 ? "" : "s"}) was summarized to fit the context window:

${summary.trim()}
</conversation-summary>`;
}

/** Marks a summary message, so the next compaction folds it into the new summary. */
export const summaryMarker = "<conversation-summary>";
