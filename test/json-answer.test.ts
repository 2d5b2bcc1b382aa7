import assert from "node:assert/strict";
import { test } from "node:test";
import { extractJsonAnswer } from "../src/engines/agent-cli/json-answer.ts";

test("a message that is one JSON value is the answer as it stands", () => {
  assert.equal(extractJsonAnswer('  {"overall": "pass", "gates": []}\n'), '{"overall": "pass", "gates": []}');
  assert.equal(extractJsonAnswer("[1, 2]"), "[1, 2]");
});

test("prose around fenced blocks: the last fenced block that parses", () => {
  const message = [
    "First draft:",
    "```json",
    '{"approach": "old"}',
    "```",
    "Better:",
    "```json",
    '{"approach": "new", "hypotheses": ["off by one"]}',
    "```",
    "Broken one last:",
    "```json",
    '{"approach": ',
    "```",
  ].join("\n");
  assert.equal(extractJsonAnswer(message), '{"approach": "new", "hypotheses": ["off by one"]}');
});

test("no fence: the last top-level object in the prose, braces inside strings included", () => {
  const message =
    'I checked {the tests}. Verdict: {"overall": "fail", "notes": "a } in a string", "gates": [{"id": "t"}]} done.';
  assert.equal(
    extractJsonAnswer(message),
    '{"overall": "fail", "notes": "a } in a string", "gates": [{"id": "t"}]}',
  );
});

test("nothing that parses: no answer", () => {
  assert.equal(extractJsonAnswer("All good, ship it."), undefined);
  assert.equal(extractJsonAnswer('{"overall": "pass"'), undefined);
  assert.equal(extractJsonAnswer(""), undefined);
});
