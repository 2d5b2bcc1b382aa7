/**
 * A real listening server for the dashboard's browser tests: the dashboard mounted on a hono app over a
 * real store, served by @hono/node-server on 127.0.0.1 at a free port, with the service's supervisor
 * running the loops submitted through it in the background (a submission wakes it at once).
 */
import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { mountDashboard } from "../../src/server/dashboard/mount-dashboard.ts";
import { createSupervisor } from "../../src/service/supervisor.ts";
import { wakingStore } from "../../src/service/waking-store.ts";
import type { Store } from "../../src/store/store.ts";

export interface DashboardServer {
  url: string;
  close(): Promise<void>;
}

export async function startDashboardServer(options: {
  store: Store;
  home: string;
  secret: string;
  specFolder: string;
}): Promise<DashboardServer> {
  const supervisor = createSupervisor({
    store: options.store,
    home: options.home,
    caps: { maxActive: 4, maxPerProvider: {} },
  });
  supervisor.start();
  const store = wakingStore(options.store, supervisor.wake);
  const app = new Hono();
  const closing = new AbortController();
  // Until the API's event streams land: each loop's events, polled from the store.
  app.get("/api/loops/:id/events", (context) =>
    streamSSE(context, async (stream) => {
      let seq = 0;
      while (!closing.signal.aborted && !stream.aborted) {
        for (const event of await options.store.readEvents(context.req.param("id"), seq)) {
          seq = event.seq;
          await stream.writeSSE({ event: event.type, data: JSON.stringify(event), id: String(event.seq) });
        }
        await stream.sleep(100);
      }
    }),
  );
  app.get("/api/events", (context) =>
    streamSSE(context, async (stream) => {
      const seen = new Map<string, number>();
      while (!closing.signal.aborted && !stream.aborted) {
        for (const loop of await options.store.listLoops()) {
          const events = await options.store.readEvents(loop.id, seen.get(loop.id) ?? 0);
          if (events.length === 0) continue;
          seen.set(loop.id, events.at(-1)?.seq ?? 0);
          await stream.writeSSE({ event: "event", data: String(events.length) });
        }
        await stream.sleep(200);
      }
    }),
  );
  mountDashboard(app, {
    store,
    home: options.home,
    secret: options.secret,
    specFolder: options.specFolder,
  });
  const { promise, resolve } = Promise.withResolvers<number>();
  const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => resolve(info.port));
  const port = await promise;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      closing.abort();
      await supervisor.shutdown(10_000);
      (server as Server).closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
