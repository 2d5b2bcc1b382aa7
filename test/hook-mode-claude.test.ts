/**
 * Hook mode under the real Claude Code CLI, driven by the mock-model server: `loopwright init claude`
 * sets it up in a real checkout, then scripted sessions of `claude` meet the hooks as a user's would.
 * (a) a failing gate blocks the stop, the reason reaches the model, the fix lets it stop; (b) a report
 * with a [CRITICAL] blocks even under VERDICT: PASS; (c) a code change makes the review stale, a README
 * change does not; (d) the kill switch; (e) the circuit breaker; (f) deferred mode: turns and sessions;
 * (h) the same hooks installed as a plugin from a local marketplace.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import type { LoggedRequest } from "../src/mock-model/request-log.ts";
import type { ScriptInput } from "../src/mock-model/script.ts";
import { type MockModel, startMockModel } from "../src/mock-model/server.ts";
import { agentCliEnvironment } from "./support/agent-cli-env.ts";
import { type ClaudeSession, hookAnswers, results, runClaudeSession } from "./support/claude-session.ts";
import { hookState } from "./support/hook-runner.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";

type Conversation = NonNullable<ScriptInput["conversations"]>[number];
type Turn = Conversation["turns"][number];

const execFileAsync = promisify(execFile);
const binaries = new URL("../node_modules/.bin", import.meta.url).pathname;

const wrong = "export function add(a, b) {\n  return a - b;\n}\n";
const multiplied = wrong.replace("-", "*");
const fixed = wrong.replace("-", "+");
const guarded = fixed.replace(
  "{\n",
  '{\n  if (typeof a !== "number" || typeof b !== "number") throw new TypeError("numbers only");\n',
);
const project = {
  "package.json": '{ "type": "module" }\n',
  "README.md": "# math\n\nAdds numbers.\n",
  "math.js": wrong,
  "test/math.test.js":
    'import assert from "node:assert/strict";\nimport { test } from "node:test";\nimport { add } from "../math.js";\n\ntest("add", () => assert.equal(add(2, 3), 5));\n',
  "loop.yaml": `name: hooked
goal: add() in math.js adds its arguments.
maker: { engine: command, run: "true" }
gates:
  - { id: tests, kind: tests-pass, run: "node --test" }
  - { id: syntax, kind: build-succeeds, run: "node --check math.js", hook: on-close }
`,
};

const read = (file: string): Turn => ({ tools: [{ name: "Read", input: { file_path: `{{cwd}}/${file}` } }] });
const write = (file: string, content: string): Turn => ({
  tools: [{ name: "Write", input: { file_path: `{{cwd}}/${file}`, content } }],
});
const closeWork: Turn = { tools: [{ name: "Bash", input: { command: "{{cwd}}/.loopwright/hook close" } }] };
const review = (marker: string, agentType = "loopwright-reviewer"): Turn => ({
  tools: [
    {
      name: "Agent",
      input: {
        subagent_type: agentType,
        description: "Review the work",
        prompt: `${marker}: review the changes.`,
      },
    },
  ],
});
const say = (text: string): Turn => ({ text });
const conversation = (marker: string, turns: Turn[]): Conversation => ({
  name: marker,
  when: { contains: marker },
  turns,
});

const conversations: Conversation[] = [
  // Reviewers first: their marker is in the Agent prompt, which opens the subagent's conversation.
  conversation("RVW-B1", [
    read(".loopwright/review-request.md"),
    say(
      "[CRITICAL] math.js:2 add() accepts strings and concatenates them\n[INFO] math.js:1 short\n\nVERDICT: PASS",
    ),
  ]),
  conversation("RVW-B2", [say("[WARNING] math.js:2 a plain TypeError; fine\nVERDICT: PASS")]),
  conversation("RVW-C1", [say("[INFO] math.js:2 reads well\nVERDICT: PASS")]),
  conversation("RVW-C2", [say("No findings.")]),
  conversation("RVW-F1", [say("No findings.")]),
  conversation("RVW-F3", [say("No findings.")]),
  conversation("GATE-FIX", [
    read("math.js"),
    write("math.js", multiplied),
    say("add() is fixed."),
    write("math.js", fixed),
    say("Now add() really adds."),
  ]),
  conversation("CRITICAL-OVERRULES", [
    read("math.js"),
    write("math.js", fixed),
    closeWork,
    say("Done."),
    review("RVW-B1"),
    say("Reviewed."),
    write("math.js", guarded),
    review("RVW-B2"),
    say("All good."),
  ]),
  conversation("STALE-ONE", [
    read("math.js"),
    write("math.js", fixed),
    closeWork,
    say("Done."),
    review("RVW-C1"),
    say("Reviewed."),
  ]),
  conversation("STALE-TWO", [
    read("math.js"),
    write("math.js", fixed.replace("a + b", "b + a")),
    closeWork,
    say("Done."),
    review("RVW-C2"),
    say("Reviewed."),
  ]),
  conversation("STALE-THREE", [
    read("README.md"),
    write("README.md", "# math\n\nAdds two numbers.\n"),
    closeWork,
    say("Done."),
  ]),
  conversation("KILL-SWITCH", [read("math.js"), write("math.js", multiplied), say("Done.")]),
  conversation("BREAKER", [
    read("math.js"),
    write("math.js", multiplied),
    ...Array.from({ length: 6 }, () => say("Done.")),
  ]),
  conversation("DEFER-MAIN", [
    read("math.js"),
    write("math.js", fixed),
    ...Array.from({ length: 16 }, (_, index) => say(`ok ${index + 1}`)),
    review("RVW-F1"),
    say("Reviewed."),
  ]),
  conversation("DEFER-SECOND", [
    read("math.js"),
    write("math.js", fixed.replace("a + b", "b + a")),
    say("Done."),
  ]),
  conversation("DEFER-THIRD", [say("Hello."), review("RVW-F3"), say("Reviewed.")]),
  conversation("PLUGIN-FIX", [
    read("math.js"),
    write("math.js", multiplied),
    say("add() is fixed."),
    write("math.js", fixed),
    say("Now add() really adds."),
  ]),
];

let server: MockModel;
let cliEnv: Record<string, string>;
const sandboxes: Sandbox[] = [];

before(async () => {
  server = await startMockModel({ script: { conversations } });
  cliEnv = {
    ...(await agentCliEnvironment(server.url, ["claude-code"])),
    PATH: `${binaries}${delimiter}${process.env.PATH}`,
  };
});
after(async () => {
  await server.close();
  await Promise.all(sandboxes.map((sandbox) => sandbox.cleanup()));
});

/** A checkout of the project with hook mode set up by the real `loopwright init claude`. */
async function hookedCheckout(init = true): Promise<Sandbox> {
  const sandbox = await createSandbox(project);
  delete sandbox.env.NODE_TEST_CONTEXT;
  sandboxes.push(sandbox);
  if (init) {
    const result = await sandbox.cli(["init", "claude"]);
    assert.equal(result.code, 0, result.stderr);
    // As a user would: commit the set-up, so that the work is only what Claude changes.
    await sandbox.git("add", "-A");
    await sandbox.git("commit", "-q", "-m", "hook mode");
  }
  return sandbox;
}

const session = (sandbox: Sandbox, prompts: string[], env: Record<string, string> = cliEnv) =>
  runClaudeSession(sandbox.repo, prompts, { ...sandbox.env, ...env });

const requestsOf = (name: string) => server.requests.filter((request) => request.conversation === name);

/** The text of the last message of a model request (where Claude puts Stop hook feedback). */
function lastMessage(request: LoggedRequest): string {
  const messages = (request.body as { messages: { content: unknown }[] }).messages;
  return JSON.stringify(messages.at(-1)?.content ?? "");
}
const feedbackRequests = (name: string) =>
  requestsOf(name).filter((request) => lastMessage(request).includes("Stop hook feedback"));

function assertSucceeded(run: ClaudeSession) {
  assert.equal(run.code, 0, run.stderr);
  for (const result of results(run)) assert.equal(result.is_error, false, JSON.stringify(result));
}

describe("hook mode with the real claude", { concurrency: 3 }, () => {
  test("(a) a failing gate blocks the stop; the next request carries the reason; the fix may stop", async () => {
    const sandbox = await hookedCheckout();
    const run = await session(sandbox, ["GATE-FIX: make add() add."]);
    assertSucceeded(run);
    assert.equal(results(run)[0].result, "Now add() really adds.");
    const feedback = feedbackRequests("GATE-FIX");
    assert.deepEqual(
      feedback.map((request) => request.turn),
      [3],
    );
    const reason = lastMessage(feedback[0]);
    assert.match(reason, /gate `tests` failed/);
    assert.match(reason, /node --test/);
    assert.match(reason, /Full log: .*\.loopwright\/logs\/tests\.log/);
    assert.match(reason, /add/, "the digest names the failing test");
    assert.match(reason, /LESSONS\.md/);
    assert.equal(readFileSync(join(sandbox.repo, "math.js"), "utf8"), fixed);
    const stops = hookAnswers(run, "Stop");
    assert.deepEqual(
      stops.map((answer) => answer.decision ?? "pass"),
      ["block", "pass"],
    );
    const state = hookState(sandbox.repo);
    assert.equal(state.blocks, 0, "the breaker's counter resets on success");
    assert.ok(state.work, "the work stays open: the review is deferred");
  });

  test("(b) a report with a [CRITICAL] blocks whatever verdict line the reviewer wrote", async () => {
    const sandbox = await hookedCheckout();
    const run = await session(sandbox, ["CRITICAL-OVERRULES: make add() add."]);
    assertSucceeded(run);
    const reasons = hookAnswers(run, "Stop").map((answer) => answer.reason ?? answer.systemMessage ?? "");
    assert.equal(reasons.length, 3);
    assert.match(
      reasons[0],
      /due for review \(closing the work was asked\) and there is no review of the current code/,
    );
    assert.match(reasons[0], /subagent_type "loopwright-reviewer"/);
    assert.match(
      reasons[1],
      /review of the current code FAILED \(the reviewer wrote VERDICT: PASS; a \[CRITICAL\] finding overrules it\)/,
    );
    assert.match(reasons[1], /\[CRITICAL\] math\.js:2 add\(\) accepts strings/);
    assert.match(
      reasons[2],
      /definition of done holds: gates tests, syntax pass; review PASS \(0 critical, 1 warning/,
    );
    // The reviewer read the request the hook wrote, through its real Read tool.
    const requestRead = lastMessage(requestsOf("RVW-B1")[1]);
    assert.match(requestRead, /## Changed files\\n\d+\\t- math\.js\\n/);
    assert.equal(hookState(sandbox.repo).work, undefined, "the work is closed");
  });

  test("(c) a code change makes a passing review stale; a README change keeps it", async () => {
    const sandbox = await hookedCheckout();
    assertSucceeded(await session(sandbox, ["STALE-ONE: make add() add."]));
    const verdicts = () =>
      JSON.parse(readFileSync(join(sandbox.repo, ".loopwright", "verdict.json"), "utf8"));
    const first = verdicts();
    assert.equal(first.verdict, "PASS");

    const second = await session(sandbox, ["STALE-TWO: swap the operands."]);
    assertSucceeded(second);
    const [stale] = hookAnswers(second, "Stop");
    assert.match(
      stale.reason ?? "",
      /the code changed since the last review, so that review no longer counts/,
    );
    assert.notEqual(verdicts().stamps.code, first.stamps.code);

    const stampsBefore = verdicts().stamps;
    const third = await session(sandbox, ["STALE-THREE: reword the README."]);
    assertSucceeded(third);
    assert.deepEqual(feedbackRequests("STALE-THREE"), [], "no review was demanded");
    assert.match(hookAnswers(third, "Stop")[0].systemMessage ?? "", /definition of done holds.*review PASS/);
    assert.deepEqual(verdicts().stamps, stampsBefore, "the verdict of the code still holds");
  });

  test("(d) the kill switch lets Claude stop with a failing gate", async () => {
    const sandbox = await hookedCheckout();
    await writeFile(join(sandbox.repo, ".loopwright", "off"), "");
    const run = await session(sandbox, ["KILL-SWITCH: make add() add."]);
    assertSucceeded(run);
    assert.deepEqual(feedbackRequests("KILL-SWITCH"), []);
    assert.deepEqual(hookAnswers(run, "Stop"), [{}]);
    assert.equal(readFileSync(join(sandbox.repo, "math.js"), "utf8"), multiplied);
  });

  test("(e) the circuit breaker lets Claude stop after 5 blocks and tells the user why", async () => {
    const sandbox = await hookedCheckout();
    const run = await session(sandbox, ["BREAKER: make add() add."]);
    assertSucceeded(run);
    assert.equal(feedbackRequests("BREAKER").length, 5);
    const stops = hookAnswers(run, "Stop");
    assert.equal(stops.length, 6);
    assert.equal(stops[5].decision, undefined);
    assert.match(
      stops[5].systemMessage ?? "",
      /blocked 5 times in a row, so Claude was let stop; the definition of done does NOT hold: .*gate `tests` failed/,
    );
    const state = hookState(sandbox.repo);
    assert.deepEqual([state.blocks, state.totals.blocks, state.totals.breakerTrips], [0, 5, 1]);
  });

  test("(f) deferred mode: no review for early stops, demanded after 15 turns and at a new session", async () => {
    const sandbox = await hookedCheckout();
    const prompts = Array.from({ length: 16 }, (_, index) => `DEFER-MAIN prompt ${index + 1}`);
    const run = await session(sandbox, prompts);
    assertSucceeded(run);
    const stops = hookAnswers(run, "Stop");
    assert.deepEqual(
      stops.map((answer) => answer.decision ?? "pass"),
      [...Array.from({ length: 15 }, () => "pass"), "block", "pass"],
    );
    assert.match(stops[15].reason ?? "", /due for review \(15 turns since the work opened\)/);
    // The status lines, as the model read them.
    const contexts = hookAnswers(run, "UserPromptSubmit").map(
      (answer) => answer.hookSpecificOutput?.additionalContext ?? "",
    );
    assert.match(contexts[1], /1 file changed since the work opened 1 turn ago \(review deferred\)/);
    assert.match(
      contexts[10],
      /open 10 turns: suggest to the user to close it now \(run `.*\.loopwright\/hook close`/,
    );
    assert.match(contexts[15], /Review due \(15 turns since the work opened\)/);
    assert.match(
      JSON.stringify(requestsOf("DEFER-MAIN").at(-1)?.body),
      /loopwright: repository repo; 1 file changed/,
    );

    // A new session finds the debt of work opened in another one due at its first stop.
    assertSucceeded(await session(sandbox, ["DEFER-SECOND: make add() add."]));
    const third = await session(sandbox, ["DEFER-THIRD: hello"]);
    assertSucceeded(third);
    assert.match(hookAnswers(third, "Stop")[0].reason ?? "", /due for review \(a new session began\)/);
  });

  test("(h) installed as a plugin from a local marketplace, the hooks block a stop the same way", async () => {
    const sandbox = await hookedCheckout(false);
    const marketplace = await mkdtemp(join(sandbox.root, "marketplace-"));
    const written = await sandbox.cli(["init", "claude", "--plugin", marketplace]);
    assert.equal(written.code, 0, written.stderr);
    const home = await mkdtemp(join(sandbox.root, "plugin-home-"));
    const env = { ...sandbox.env, ...cliEnv, HOME: home };
    await execFileAsync("claude", ["plugin", "validate", marketplace], { env });
    await execFileAsync("claude", ["plugin", "marketplace", "add", marketplace], { env });
    await execFileAsync("claude", ["plugin", "install", "loopwright@loopwright"], { env });

    const run = await session(sandbox, ["PLUGIN-FIX: make add() add."], { ...cliEnv, HOME: home });
    assertSucceeded(run);
    const feedback = feedbackRequests("PLUGIN-FIX");
    assert.deepEqual(
      feedback.map((request) => request.turn),
      [3],
    );
    assert.match(lastMessage(feedback[0]), /gate `tests` failed/);
    assert.match(
      hookAnswers(run, "UserPromptSubmit")[0].hookSpecificOutput?.additionalContext ?? "",
      /review by the loopwright:loopwright-reviewer subagent/,
    );
  });
});
