/**
 * Live events through a real listening server: a loop run by another process (the CLI with scripted
 * engines) streams to an SSE client, which disconnects mid-loop and reconnects with Last-Event-ID and
 * receives every event exactly once; heartbeats; one loop's stream; an in-process action arrives at once.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createServer, type LoopwrightServer } from "../src/server/create-server.ts";
import { type Listening, listen } from "../src/server/listen.ts";
import { openStore } from "../src/store/open-store.ts";
import type { Store } from "../src/store/store.ts";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { waitFor } from "./support/wait-for.ts";

interface Message {
  id?: string;
  data?: string;
  comment?: string;
}

/**
 * An SSE client over fetch: collects messages and comments until `stop` says so or the stream is
 * aborted by `close()`.
 */
function connect(url: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const messages: Message[] = [];
  const done = (async () => {
    const answer = await fetch(url, { headers, signal: controller.signal });
    if (answer.status !== 200) throw new Error(`${url}: ${answer.status} ${await answer.text()}`);
    assert.match(answer.headers.get("content-type") ?? "", /text\/event-stream/);
    const reader = answer.body?.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    try {
      for (;;) {
        const chunk = await reader?.read();
        if (!chunk || chunk.done) break;
        buffer += chunk.value;
        let end = buffer.indexOf("\n\n");
        while (end !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const message: Message = {};
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) message.comment = line.slice(1).trim();
            else if (line.startsWith("id: ")) message.id = line.slice(4);
            else if (line.startsWith("data: ")) message.data = (message.data ?? "") + line.slice(6);
          }
          messages.push(message);
          end = buffer.indexOf("\n\n");
        }
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    }
  })();
  return {
    messages,
    events: () =>
      messages
        .filter((message) => message.data !== undefined)
        .map((message) => JSON.parse(message.data ?? "")),
    close: async () => {
      controller.abort();
      await done.catch(() => {});
    },
    done,
  };
}

let sandbox: Sandbox;
let store: Store;
let server: LoopwrightServer;
let listening: Listening;

before(async () => {
  sandbox = await createSandbox();
  store = await openStore(sandbox.home);
  server = createServer({ store, home: sandbox.home, heartbeatMs: 100, env: {}, log: () => {} });
  listening = await listen(server, { host: "127.0.0.1", port: 0 });
});
after(async () => {
  await listening?.close();
  await store?.close();
  await sandbox?.cleanup();
});

test("a client that disconnects mid-loop and reconnects with Last-Event-ID receives every event exactly once", async () => {
  const release = join(sandbox.root, "release");
  // Each gate run waits until the test lets it go, so the client can leave while the loop is mid-way.
  const spec = await sandbox.spec(`name: streamed
goal: count.txt holds 3
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { count.txt: "1\\n" }
    - write: { count.txt: "2\\n" }
    - write: { count.txt: "3\\n" }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates: [{ id: count, kind: tests-pass, run: "while [ ! -e ${release} ]; do sleep 0.05; done; grep -qx 3 count.txt" }]
`);
  const first = connect(`${listening.url}/api/events?after=0`);
  const run = sandbox.spawnCli(["run", spec]);
  await waitFor(
    () => first.events().some((event) => event.type === "gate_started"),
    "the first gate to start, streamed",
  );
  await first.close();
  const lastSeen = first.events().at(-1).id as number;
  // While nobody listens, the loop goes on.
  const { writeFile } = await import("node:fs/promises");
  await writeFile(release, "");
  await waitFor(async () => (await store.lastEventId()) > lastSeen + 10, "more events while disconnected");
  const second = connect(`${listening.url}/api/events`, { "last-event-id": String(lastSeen) });
  const result = await run.done;
  assert.equal(result.code, 0, result.stdout + result.stderr);
  await waitFor(
    () => second.events().some((event) => event.type === "run_ended"),
    "the end of the run, streamed",
  );
  await second.close();
  const received = [...first.events(), ...second.events()];
  const loop = await store.findLoop("streamed");
  const stored = await store.readEvents(loop?.id ?? "");
  assert.deepEqual(
    received.map((event) => event.id),
    stored.map((event) => event.id),
    "every event once, in order",
  );
  assert.deepEqual(
    received.map((event) => event.type),
    stored.map((event) => event.type),
  );
  // The SSE id of each message is the event's global id.
  for (const message of [...first.messages, ...second.messages].filter((each) => each.data)) {
    assert.equal(Number(message.id), JSON.parse(message.data ?? "").id);
  }
  assert.ok(first.events().length > 0 && second.events().length > 0);
});

test("heartbeats arrive as comments; ?after= resumes like Last-Event-ID; a bad Last-Event-ID is refused", async () => {
  const client = connect(`${listening.url}/api/events?after=${await store.lastEventId()}`);
  await waitFor(
    () => client.messages.filter((message) => message.comment === "heartbeat").length >= 2,
    "two heartbeats",
  );
  await client.close();
  const bad = await fetch(`${listening.url}/api/events`, { headers: { "last-event-id": "yesterday" } });
  assert.equal(bad.status, 400);
  assert.equal(((await bad.json()) as { field: string }).field, "Last-Event-ID");
});

test("one loop's stream carries only its events; an action taken through the API arrives at once", async () => {
  const loops = await store.listLoops();
  const loop = loops.find((candidate) => candidate.name === "streamed");
  assert.ok(loop);
  const other = await store.createLoop({
    id: "other-loop",
    name: "other",
    repoRoot: sandbox.repo,
    specPath: "x",
    spec: loop.spec,
  });
  const own = connect(`${listening.url}/api/loops/${loop.id}/events`);
  const everything = connect(`${listening.url}/api/events`);
  await waitFor(() => own.messages.length > 0 && everything.messages.length > 0, "both streams to open");
  await store.appendEvent(other.id, "loop_created", { name: "other" });
  const session = (await (await fetch(`${listening.url}/api/session`)).json()) as { secret: string };
  const started = Date.now();
  const steer = await fetch(`${listening.url}/api/loops/${loop.id}/steer`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-loopwright-secret": session.secret },
    body: JSON.stringify({ goal: "count.txt holds 4" }),
  });
  // A verified loop refuses steering: the answer is a clear 400, and nothing streams for it.
  assert.equal(steer.status, 400);
  const pause = await fetch(`${listening.url}/api/loops/other-loop/pause`, {
    method: "POST",
    headers: { "x-loopwright-secret": session.secret },
  });
  assert.equal(pause.status, 202, await pause.clone().text());
  await waitFor(() => everything.events().some((event) => event.type === "pause_requested"), "the pause");
  const delay = Date.now() - started;
  await own.close();
  await everything.close();
  assert.deepEqual(
    own.events().map((event) => event.loopId),
    [],
    "nothing of the other loop on this loop's stream",
  );
  assert.deepEqual(
    everything.events().map((event) => [event.loopId, event.type]),
    [
      ["other-loop", "loop_created"],
      ["other-loop", "pause_requested"],
    ],
  );
  assert.ok(delay < 1000, `the action's event streamed ${delay} ms after it was asked`);
  const missing = await fetch(`${listening.url}/api/loops/no-such-loop/events`);
  assert.equal(missing.status, 404);
  // Clients that left are unsubscribed: nothing leaks per connection.
  await waitFor(() => server.feed.subscriberCount() === 0, "every stream to be unsubscribed");
});

test("listening on a port already taken is refused; a listening server answers only its own Host names", async () => {
  const second = createServer({ store, home: sandbox.home, env: {}, log: () => {} });
  await assert.rejects(listen(second, { host: "127.0.0.1", port: listening.port }), /EADDRINUSE/);
  second.close();
  assert.equal((await fetch(`${listening.url}/api/loops`)).status, 200);
  const localhost = await fetch(`http://localhost:${listening.port}/api/loops`).catch(() => undefined);
  if (localhost) assert.equal(localhost.status, 200);
  // A rebinding page's request reaches the socket with its own name in Host: refused.
  const { request } = await import("node:http");
  const status = await new Promise<number | undefined>((resolve, reject) => {
    const forged = request(
      {
        host: "127.0.0.1",
        port: listening.port,
        path: "/api/loops",
        headers: { host: `evil.example:${listening.port}` },
      },
      (answer) => {
        answer.resume();
        resolve(answer.statusCode);
      },
    );
    forged.on("error", reject);
    forged.end();
  });
  assert.equal(status, 403);
});
