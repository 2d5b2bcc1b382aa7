import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SpecError } from "../src/errors.ts";
import { parseScript, scriptJsonSchema } from "../src/mock-model/script.ts";
import { loadScriptFile } from "../src/mock-model/script-file.ts";
import { startMockModel } from "../src/mock-model/server.ts";

const folder = mkdtempSync(join(tmpdir(), "loopwright-mock-script-"));
after(() => rmSync(folder, { recursive: true, force: true }));

/** The problems of an invalid script; fails the test when the script is accepted. */
function problemsOf(data: unknown): string[] {
  const parsed = parseScript(data, "script.yaml");
  if (parsed.ok) assert.fail("the script was accepted");
  return parsed.problems;
}

describe("script format", () => {
  test("flat turns become one conversation named default, with delays in ms and errors as objects", () => {
    const parsed = parseScript({
      turns: [
        { text: "hi", delay: "250ms" },
        { error: 500 },
        { error: { status: 429, times: 1 }, text: "ok", delay: 2 },
      ],
    });
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.script.models, ["mock-model"]);
    assert.equal(parsed.script.conversations.length, 1);
    const [conversation] = parsed.script.conversations;
    assert.equal(conversation.name, "default");
    assert.equal(conversation.turns[0].delay, 250);
    assert.deepEqual(conversation.turns[1].error, { status: 500 });
    assert.equal(conversation.turns[2].delay, 2000);
  });

  test("a tool call's input defaults to an empty object", () => {
    const parsed = parseScript({ turns: [{ tools: [{ name: "Bash" }] }] });
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.script.conversations[0].turns[0].tools, [{ name: "Bash", input: {} }]);
  });

  test("every mistake is reported with its field path", () => {
    const problems = problemsOf({
      turns: [
        {},
        { text: "a", colour: "red" },
        { json: { a: 1 }, text: "also" },
        { error: { status: 200 } },
        { error: 500, text: "never sent" },
        { error: { status: 429, times: 2 } },
        { text: "x", delay: "soon" },
        { hang: true, text: "and talk" },
      ],
    });
    const expected = [
      /^script\.yaml: turns\[0\]: a turn needs text, tools, json, hang or error$/,
      /^script\.yaml: turns\[1\]: .*colour/,
      /^script\.yaml: turns\[2\]: json is a whole answer; it cannot be combined with text$/,
      /^script\.yaml: turns\[3\]\.error\.status: /,
      /^script\.yaml: turns\[4\]\.error: an error without times always fails, so text would never be sent$/,
      /^script\.yaml: turns\[5\]\.error\.times: times needs text, tools, json or hang/,
      /^script\.yaml: turns\[6\]\.delay: not a duration: "soon"/,
      /^script\.yaml: turns\[7\]: hang never answers/,
    ];
    for (const pattern of expected)
      assert.ok(
        problems.some((problem) => pattern.test(problem)),
        `no problem matches ${pattern}:\n${problems.join("\n")}`,
      );
  });

  test("a script has turns or conversations, not both, and conversation names are unique", () => {
    assert.match(problemsOf({})[0], /either turns or conversations/);
    assert.match(
      problemsOf({ turns: [], conversations: [{ name: "a", turns: [] }] })[0],
      /either turns or conversations/,
    );
    const duplicate = problemsOf({
      conversations: [
        { name: "maker", turns: [] },
        { name: "maker", when: { contains: "x" }, turns: [] },
      ],
    });
    assert.deepEqual(duplicate, ['script.yaml: conversations[1].name: duplicate conversation name "maker"']);
  });

  test("the JSON Schema describes the written form", () => {
    const schema = scriptJsonSchema() as { properties: Record<string, unknown> };
    assert.deepEqual(Object.keys(schema.properties).sort(), ["conversations", "models", "turns"]);
    assert.match(JSON.stringify(schema), /"retryAfter"/);
  });
});

describe("script files", () => {
  test("YAML and JSON files load", async () => {
    const yamlPath = join(folder, "script.yaml");
    writeFileSync(
      yamlPath,
      "models: [gpt-5.5]\nconversations:\n  - name: verifier\n    when: { contains: independent verifier }\n    turns:\n      - json: { verdict: approve }\n",
    );
    const fromYaml = await loadScriptFile(yamlPath);
    assert.deepEqual(fromYaml.models, ["gpt-5.5"]);
    assert.equal(fromYaml.conversations[0].when?.contains, "independent verifier");
    const jsonPath = join(folder, "script.json");
    writeFileSync(jsonPath, JSON.stringify({ turns: [{ text: "hello" }] }));
    assert.equal((await loadScriptFile(jsonPath)).conversations[0].turns[0].text, "hello");
  });

  test("a missing file, bad YAML and a bad script are SpecErrors naming the file", async () => {
    await assert.rejects(loadScriptFile(join(folder, "absent.yaml")), (error: unknown) => {
      assert.ok(error instanceof SpecError);
      assert.match(error.message, /absent\.yaml: no such file/);
      return true;
    });
    const broken = join(folder, "broken.yaml");
    writeFileSync(broken, "turns: [ { text: 'unclosed\n");
    await assert.rejects(loadScriptFile(broken), /broken\.yaml: invalid YAML/);
    const invalid = join(folder, "invalid.yaml");
    writeFileSync(invalid, "turns:\n  - tools: []\n");
    await assert.rejects(loadScriptFile(invalid), (error: unknown) => {
      assert.ok(error instanceof SpecError);
      assert.equal(error.problems.length, 1);
      assert.match(error.problems[0], /^.*invalid\.yaml: turns\[0\]\.tools: /);
      return true;
    });
  });

  test("the server refuses an invalid script before listening", async () => {
    await assert.rejects(startMockModel({ script: { turns: [{ text: 3 }] } as never }), SpecError);
  });
});
