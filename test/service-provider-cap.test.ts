/**
 * The per-provider cap, end to end: three loops whose maker is the built-in agent on an OpenAI model (the
 * mock-model server), under `--max-per-provider openai=1`, never run two at once; loops that call no
 * provider (scripted) are not held back behind them.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type MockModel, startMockModel } from "../src/mock-model/server.ts";
import { createSandbox } from "./support/loop-sandbox.ts";
import {
  mostAtOnce,
  runIntervals,
  startService,
  stopService,
  submit,
  timelines,
  waitForStopped,
} from "./support/service-harness.ts";

const openaiLoops = ["pp-1", "pp-2", "pp-3"];
const scriptedLoops = ["sc-1", "sc-2"];

let model: MockModel;
before(async () => {
  model = await startMockModel({
    script: {
      conversations: openaiLoops.map((name) => ({
        name,
        when: { contains: `# Loop ${name}: iteration` },
        turns: [
          { delay: "1s", tools: [{ name: "write", input: { path: `${name}.txt`, content: "done\n" } }] },
          { text: `wrote ${name}.txt` },
        ],
      })),
    },
  });
});
after(() => model.close());

const spec = (name: string, maker: string) => `name: ${name}
goal: ${name}.txt says done.
repo: ./repo
maker: ${maker}
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: done, kind: tests-pass, run: "grep -qx done ${name}.txt" }
`;

test("--max-per-provider openai=1: the OpenAI loops run one at a time, loops of no provider beside them", {
  timeout: 180_000,
}, async () => {
  const sandbox = await createSandbox();
  const env = { OPENAI_BASE_URL: `${model.url}/v1`, OPENAI_API_KEY: "mock-key" };
  try {
    for (const name of openaiLoops)
      await submit(sandbox, name, spec(name, `{ engine: builtin, model: "openai:mock-model" }`), env);
    for (const name of scriptedLoops)
      await submit(
        sandbox,
        name,
        spec(name, `{ engine: scripted, turns: [{ sleep: 2s, write: { ${name}.txt: "done\\n" } }] }`),
        env,
      );
    const service = await startService(sandbox, ["--max-per-provider", "openai=1"], env);
    try {
      await waitForStopped(sandbox, [...openaiLoops, ...scriptedLoops], "every loop to stop", 120_000);
    } finally {
      await stopService(service);
    }
    const all = timelines(sandbox);
    for (const name of [...openaiLoops, ...scriptedLoops])
      assert.equal(
        all.get(name)?.findLast((event) => event.type === "loop_stopped")?.data.reason,
        "verified",
        name,
      );
    const intervals = runIntervals(all);
    const openai = intervals.filter((interval) => openaiLoops.includes(interval.loop));
    assert.equal(openai.length, 3);
    assert.equal(mostAtOnce(openai), 1, "one OpenAI loop at a time");
    const firstOpenai = openai.reduce((first, interval) => (interval.start < first.start ? interval : first));
    for (const name of scriptedLoops) {
      const run = intervals.find((interval) => interval.loop === name);
      assert.ok(run && run.start < firstOpenai.end, `${name} was not held back behind the OpenAI loops`);
    }
    assert.ok(mostAtOnce(intervals) <= 4, "within the default --max-active 4");
  } finally {
    await sandbox.cleanup();
  }
});
