/**
 * `rm <loop>`: worktrees, logs and the loop's record; its branch only with `--branch`. What a dead
 * controller of the loop left running (found by its run tags) is killed first.
 */
import { deleteLoop } from "../../app/delete-loop.ts";
import { cliActor } from "../cli-actor.ts";
import { appContext, openSession } from "../session.ts";

export async function removeCommand(reference: string, options: { branch?: boolean }): Promise<number> {
  const session = await openSession();
  try {
    const context = await appContext(session);
    const removed = await deleteLoop(context, reference, cliActor(), { branch: options.branch ?? false });
    process.stdout.write(`${removed.message}\n`);
    return 0;
  } finally {
    await session.store.close();
  }
}
