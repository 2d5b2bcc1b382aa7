/**
 * Service discovery: a running `serve` writes `<home>/service.json` (mode 0600) and removes it on exit.
 * A reader treats a file whose process is dead (or whose pid was reused) as absent, so a service killed
 * with `kill -9` is never mistaken for a running one.
 */
import { link, readFile, rm, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { UsageError } from "../errors.ts";
import { isLockOwnerAlive, processStamp } from "../process/liveness.ts";

export const serviceInfoSchema = z.object({
  pid: z.number().int(),
  host: z.string(),
  port: z.number().int(),
  url: z.string(),
  startedAt: z.string(),
  /** The process's start stamp (see `processStamp`): tells it apart from a later process with its pid. */
  processStart: z.string(),
});

/** What a running service says about itself. */
export type ServiceInfo = z.infer<typeof serviceInfoSchema>;

export function serviceFilePath(home: string): string {
  return join(home, "service.json");
}

/** The record for this process, serving at `host:port`. */
export function currentServiceInfo(host: string, port: number): ServiceInfo {
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return {
    pid: process.pid,
    host,
    port,
    url: `http://${shownHost}:${port}`,
    startedAt: new Date().toISOString(),
    processStart: processStamp(process.pid),
  };
}

/**
 * Makes this process the service of `home`: writes `service.json` (0600) unless a live service holds it,
 * whose record is then returned. Atomic against a second `serve` starting at the same moment: the file
 * appears complete or not at all (written aside, then hard-linked into place, which fails if it exists).
 */
export async function claimServiceFile(home: string, info: ServiceInfo): Promise<ServiceInfo | undefined> {
  const path = serviceFilePath(home);
  const aside = `${path}.${process.pid}`;
  await writeFile(aside, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await link(aside, path);
        return undefined;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const running = await readServiceFile(home);
      if (running) return running;
      if (attempt > 0) throw new UsageError(`${path}: cannot be claimed; is another service starting?`);
      await rm(path, { force: true }); // a dead service's record
    }
  } finally {
    await rm(aside, { force: true });
  }
}

/** The running service of this home, or undefined when there is none (no file, unreadable, or its process is dead). */
export async function readServiceFile(home: string): Promise<ServiceInfo | undefined> {
  let text: string;
  try {
    text = await readFile(serviceFilePath(home), "utf8");
  } catch {
    return undefined;
  }
  let parsed: ReturnType<typeof serviceInfoSchema.safeParse>;
  try {
    parsed = serviceInfoSchema.safeParse(JSON.parse(text));
  } catch {
    return undefined;
  }
  if (!parsed.success) return undefined;
  const info = parsed.data;
  const alive = isLockOwnerAlive({
    runId: "",
    pid: info.pid,
    host: hostname(),
    processStart: info.processStart,
  });
  return alive ? info : undefined;
}

/** Removes `service.json` if it is this process's own (a newer service's file is left alone). */
export async function removeServiceFile(home: string): Promise<void> {
  const path = serviceFilePath(home);
  try {
    const info = JSON.parse(await readFile(path, "utf8")) as Partial<ServiceInfo>;
    if (info.pid !== process.pid) return;
  } catch {
    return;
  }
  await rm(path, { force: true });
}
