/**
 * `node bench/sse-clients.ts <url> <clients> <events>`: the SSE fan-out benchmark's clients, in a process
 * of their own. Opens `clients` connections to `<url>/api/events`, prints `ready` once every stream said
 * `: connected`; then on `rtt <n>` (a stdin line) times n plain GETs of `<url>/assets/dashboard.js` one after
 * another and prints `{"rtt": [ms...]}`; meanwhile it notes when each event id reaches each client
 * (epoch ms), and once every client has `events` events (or on `done`) prints
 * `{"received": [[[id, at], ...] per client]}` and exits.
 */
import { get, type IncomingMessage } from "node:http";
import { createInterface } from "node:readline";
import { epochMs } from "./support.ts";

const [url, clientArgument, eventArgument] = process.argv.slice(2);
const clients = Number(clientArgument);
const expected = Number(eventArgument);
const received: [number, number][][] = Array.from({ length: clients }, () => []);
const responses: IncomingMessage[] = [];
let connected = 0;
let finished = false;

const finish = () => {
  if (finished) return;
  finished = true;
  for (const response of responses) response.destroy();
  // A pipe takes a large write in pieces: exit once it is all out.
  process.stdout.write(`${JSON.stringify({ received })}\n`, () => process.exit(0));
};

for (let client = 0; client < clients; client++) {
  const request = get(`${url}/api/events`, { headers: { accept: "text/event-stream" } }, (response) => {
    responses.push(response);
    response.setEncoding("utf8");
    let pending = "";
    let announced = false;
    response.on("data", (chunk: string) => {
      const at = epochMs();
      pending += chunk;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        if (!announced && line.startsWith(": connected")) {
          announced = true;
          if (++connected === clients) process.stdout.write("ready\n");
        } else if (line.startsWith("id: ")) received[client].push([Number(line.slice(4)), at]);
      }
      if (received.every((list) => list.length >= expected)) finish();
    });
  });
  request.on("error", (error) => {
    process.stderr.write(`client ${client}: ${error.message}\n`);
    process.exit(1);
  });
}

async function roundTrips(count: number): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < count; index++) {
    const start = epochMs();
    const answer = await fetch(`${url}/assets/dashboard.js`);
    await answer.arrayBuffer();
    if (!answer.ok) throw new Error(`GET /assets/dashboard.js: ${answer.status}`);
    times.push(epochMs() - start);
  }
  return times;
}

createInterface({ input: process.stdin }).on("line", async (line) => {
  if (line.startsWith("rtt ")) {
    process.stdout.write(`${JSON.stringify({ rtt: await roundTrips(Number(line.slice(4))) })}\n`);
  } else if (line === "done") finish();
});
