/**
 * A real listening server for the dashboard's browser tests, built as `serve` builds it: the HTTP API
 * (`createServer`, with the dashboard mounted) listening on 127.0.0.1 at a free port over a real store,
 * and the service's supervisor running the loops submitted through it (a submission wakes it at once).
 */
import { createServer } from "../../src/server/create-server.ts";
import { mountDashboard } from "../../src/server/dashboard/mount-dashboard.ts";
import { listen } from "../../src/server/listen.ts";
import { createSupervisor, type Supervisor } from "../../src/service/supervisor.ts";
import { wakingStore } from "../../src/service/waking-store.ts";
import type { Store } from "../../src/store/store.ts";

export interface DashboardServer {
  url: string;
  close(): Promise<void>;
}

export async function startDashboardServer(options: {
  store: Store;
  home: string;
  specFolder: string;
}): Promise<DashboardServer> {
  let supervisor: Supervisor | undefined;
  const server = createServer({
    store: wakingStore(options.store, () => supervisor?.wake()),
    home: options.home,
    host: "127.0.0.1",
    mount: (app, dependencies) => mountDashboard(app, { ...dependencies, specFolder: options.specFolder }),
  });
  const listening = await listen(server, { host: "127.0.0.1", port: 0 });
  supervisor = createSupervisor({
    store: server.context.store,
    home: options.home,
    caps: { maxActive: 4, maxPerProvider: {} },
  });
  supervisor.start();
  return {
    url: listening.url,
    close: async () => {
      await supervisor?.shutdown(10_000);
      await listening.close();
    },
  };
}
