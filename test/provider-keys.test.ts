/**
 * A provider's key goes to that provider only. An `openai-compatible` server (Ollama, vLLM, OpenRouter,
 * anyone's URL) never receives OPENAI_API_KEY: it takes the key named for it, by `--api-key-env NAME`
 * or `LOOPWRIGHT_OPENAI_COMPATIBLE_API_KEY`. The mock-model server records a fingerprint of the
 * credential each request carried; the built-in agent runs as the real `loopwright` binary.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createBuiltinEngine } from "../src/engines/builtin/builtin-engine.ts";
import { credentialFingerprint, type MockModel, startMockModel } from "../src/mock-model/server.ts";
import { mathApproval, mathProject } from "./support/failing-projects.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { createProbeFolders, probeRequest } from "./support/read-only-probe.ts";

const openAiKey = "sk-the-users-real-openai-key";

let server: MockModel;
let sandbox: Sandbox;
before(async () => {
  server = await startMockModel({
    script: {
      conversations: [
        { name: "hello", when: { contains: "SAY HELLO" }, turns: [{ text: "Hello." }] },
        { name: "probe", when: { contains: "READ-ONLY PROBE" }, turns: [{ json: mathApproval }] },
      ],
    },
  });
  sandbox = await createSandbox(mathProject);
});
after(async () => {
  await server.close();
  await sandbox.cleanup();
});

/** Fingerprints of the credentials the server saw since `from` (undefined: a request without one). */
const credentialsSince = (from: number) => server.requests.slice(from).map((request) => request.credential);

async function agentOnCompatibleServer(env: Record<string, string>, extra: string[] = []) {
  const from = server.requests.length;
  const run = await sandbox.cli(
    ["agent", "SAY HELLO", "--model", `openai-compatible:mock-model@${server.url}/v1`, ...extra],
    { env: { ...sandbox.env, OPENAI_API_KEY: openAiKey, ...env } },
  );
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const seen = credentialsSince(from);
  assert.ok(seen.length > 0, "the server was called");
  return seen;
}

describe("provider keys", () => {
  it("OPENAI_API_KEY is not sent to an openai-compatible server", async () => {
    const seen = await agentOnCompatibleServer({});
    assert.ok(!seen.includes(credentialFingerprint(openAiKey)), "the OpenAI key leaked to another server");
    assert.deepEqual(
      seen,
      seen.map(() => undefined),
      "no key at all when none is named for the server",
    );
  });

  it("LOOPWRIGHT_OPENAI_COMPATIBLE_API_KEY is the compatible server's key", async () => {
    const seen = await agentOnCompatibleServer({ LOOPWRIGHT_OPENAI_COMPATIBLE_API_KEY: "local-server-key" });
    assert.deepEqual(new Set(seen), new Set([credentialFingerprint("local-server-key")]));
  });

  it("--api-key-env names the variable that holds the server's key", async () => {
    for (const flag of [["--api-key-env", "ROUTER_KEY"], ["--api-key-env=ROUTER_KEY"]]) {
      const seen = await agentOnCompatibleServer({ ROUTER_KEY: "router-key" }, flag);
      assert.deepEqual(new Set(seen), new Set([credentialFingerprint("router-key")]), flag.join(" "));
    }
  });

  it("the builtin engine takes --api-key-env in its args, and never sends OPENAI_API_KEY elsewhere", async () => {
    const probe = await createProbeFolders("loopwright-keys-");
    try {
      for (const [args, env, expected] of [
        [[], { OPENAI_API_KEY: openAiKey }, undefined],
        [
          ["--api-key-env", "ROUTER_KEY"],
          { OPENAI_API_KEY: openAiKey, ROUTER_KEY: "router-key" },
          "router-key",
        ],
      ] as const) {
        const from = server.requests.length;
        const engine = createBuiltinEngine(
          { engine: "builtin", model: `openai-compatible:mock-model@${server.url}/v1`, args: [...args] },
          "verifier",
        );
        const result = await engine.runTurn(probeRequest(probe, { env: { ...env } }));
        assert.equal(result.status, "completed", result.error);
        const seen = new Set(credentialsSince(from));
        assert.deepEqual(seen, new Set([expected && credentialFingerprint(expected)]), args.join(" "));
      }
    } finally {
      await probe.cleanup();
    }
  });

  it("OpenAI itself still gets OPENAI_API_KEY", async () => {
    const from = server.requests.length;
    const run = await sandbox.cli(["agent", "SAY HELLO", "--model", "openai:mock-model"], {
      env: { ...sandbox.env, OPENAI_API_KEY: openAiKey, OPENAI_BASE_URL: `${server.url}/v1` },
    });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.deepEqual(new Set(credentialsSince(from)), new Set([credentialFingerprint(openAiKey)]));
  });
});
