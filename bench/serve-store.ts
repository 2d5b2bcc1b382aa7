/**
 * `node bench/serve-store.ts <home>`: the service's HTTP face (createServer with the dashboard mounted,
 * as `serve` builds it) over an existing store, listening on 127.0.0.1 at a free port, in a process of
 * its own so that the load generator does not share its event loop. Prints `{"url": ...}` once
 * listening; closes on SIGTERM.
 */
import { createServer } from "../src/server/create-server.ts";
import { mountDashboard } from "../src/server/dashboard/mount-dashboard.ts";
import { listen } from "../src/server/listen.ts";
import { openStore } from "../src/store/open-store.ts";

const home = process.argv[2];
if (!home) throw new Error("usage: node bench/serve-store.ts <home>");
const store = await openStore(home);
const server = createServer({
  store,
  home,
  log: (line) => process.stderr.write(`${line}\n`),
  mount: (app, dependencies) => mountDashboard(app, dependencies),
});
const listening = await listen(server, { host: "127.0.0.1", port: 0 });
process.stdout.write(`${JSON.stringify({ url: listening.url })}\n`);
process.once("SIGTERM", async () => {
  await listening.close();
  await store.close();
  process.exit(0);
});
