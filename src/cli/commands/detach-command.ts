/**
 * `run --detach [spec]`: validates and creates the loop as `run` does, then queues it for the service; a
 * spec with `schedule:` registers (or replaces) its schedule instead, which the service fires.
 */
import { loadSpecSource } from "../../app/submit-loop.ts";
import { submitSpec } from "../../app/submit-spec.ts";
import { cliActor } from "../cli-actor.ts";
import { openSession } from "../session.ts";
import { describeRegistration } from "./schedule-registration.ts";

export async function detachLoopCommand(specArgument: string, options: { json?: boolean }): Promise<number> {
  // Read before the home is opened: a bad spec leaves nothing behind.
  const source = await loadSpecSource({ path: specArgument });
  const session = await openSession();
  try {
    const submitted = await submitSpec({
      context: session,
      source,
      by: cliActor(),
    });
    if (submitted.kind === "schedule") {
      const { registration, service } = submitted;
      if (!options.json)
        for (const warning of registration.warnings)
          process.stderr.write(`loopwright: warning: ${warning}\n`);
      process.stdout.write(describeRegistration(registration, service, options.json ?? false));
      return 0;
    }
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
