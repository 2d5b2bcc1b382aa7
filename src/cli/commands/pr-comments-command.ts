/**
 * `pr-comments <loop>`: checks the loop's pull request once for `/loopwright` review comments (for cron,
 * or a CI job on `issue_comment`), records each new comment once, and runs the review rounds in the
 * foreground. Exits like `run` when a round ran, else 0.
 */
import { checkPullRequestComments } from "../../app/pull-request-comments.ts";
import { appContext, openSession } from "../session.ts";
import { runInForeground } from "./run-loop-command.ts";

export async function prCommentsCommand(reference: string, options: { json?: boolean }): Promise<number> {
  const session = await openSession();
  try {
    const check = await checkPullRequestComments(await appContext(session), reference);
    const requests = check.received.filter((comment) => comment.ignored === undefined);
    const ignored = check.received.length - requests.length;
    const line = `pull request #${check.pullRequest.number}: ${check.received.length} new comment${check.received.length === 1 ? "" : "s"}, ${requests.length} review request${requests.length === 1 ? "" : "s"}, ${ignored} ignored${check.busy ? "; the loop is running: its controller takes the requests up" : ""}`;
    if (options.json)
      process.stdout.write(
        `${JSON.stringify({ type: "pr_comments_checked", ...check, loop: check.loop.name })}\n`,
      );
    else process.stdout.write(`${line}\n`);
    if (!check.roundDue) return 0;
    return await runInForeground(session, check.loop, "resume", options.json ?? false);
  } finally {
    await session.store.close();
  }
}
