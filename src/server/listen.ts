/** Serving the app on a socket (@hono/node-server). */
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { defaultPort, type LoopwrightServer } from "./create-server.ts";

export interface Listening {
  /** `http://127.0.0.1:4477` (the bound port, also when 0 was asked for). */
  url: string;
  port: number;
  /** Ends the event streams, stops accepting and closes every connection. */
  close(): Promise<void>;
}

/**
 * Listens on `host:port` (port 0: any free port) and tells the guard the bound port, so that the Host
 * check accepts exactly the names of this socket. Rejects when the port is taken.
 */
export function listen(
  server: LoopwrightServer,
  options: { host: string; port?: number },
): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const http = serve({
      fetch: server.app.fetch,
      hostname: options.host,
      port: options.port ?? defaultPort,
    });
    http.once("error", reject);
    http.once("listening", () => {
      http.off("error", reject);
      const port = (http.address() as AddressInfo).port;
      server.guard.setPort(port);
      const name = options.host.includes(":") ? `[${options.host}]` : options.host;
      resolve({
        url: `http://${name}:${port}`,
        port,
        close: () =>
          new Promise<void>((done) => {
            server.close();
            http.close(() => done());
            if ("closeAllConnections" in http) http.closeAllConnections();
          }),
      });
    });
  });
}
