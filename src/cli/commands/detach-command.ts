/**
 * `run --detach [spec]`: validates and creates the loop as `run` does, then queues it for the service. A
 * spec with a `schedule:` is registered instead (each firing then queues a new loop).
 */
import { submitLoop } from "../../app/submit-loop.ts";
import { loadSpecFile } from "../../core/spec-file.ts";
import { cliActor } from "../cli-actor.ts";
import { openSession } from "../session.ts";
import { registerScheduleCommand } from "./schedule-registration.ts";

export async function detachLoopCommand(specArgument: string, options: { json?: boolean }): Promise<number> {
  const loaded = await loadSpecFile(specArgument);
  const session = await openSession();
  try {
    if (loaded.spec.schedule) return await registerScheduleCommand(session.store, loaded, specArgument);
    const submitted = await submitLoop({
      context: session,
      source: { loaded, label: specArgument },
      by: cliActor(),
    });
    const { loop, position, service } = submitted;
    if (options.json) {
      process.stdout.write(
        `${JSON.stringify({ id: loop.id, name: loop.name, repoRoot: loop.repoRoot, status: "queued", position, service: service ?? null })}\n`,
      );
      return 0;
    }
    for (const warning of submitted.warnings) process.stderr.write(`loopwright: warning: ${warning}\n`);
    const where = `loop ${loop.name} (${loop.id}) queued, position ${position}`;
    const next = service
      ? `the service at ${service.url} (pid ${service.pid}) will start it; follow it with \`loopwright ls\` or \`loopwright show ${loop.name}\``
      : "no service is running: start one with `loopwright serve` (it runs queued loops in the background), or run this loop in the foreground with `loopwright resume " +
        `${loop.name}\``;
    process.stdout.write(`${where}\n${next}\n`);
    return 0;
  } finally {
    await session.store.close();
  }
}
