/**
 * The pull request step of a `finish: { action: pull-request }`, after the branch is pushed: find the
 * open pull (merge) request of the loop's branch and update its body, or open one. Recorded as
 * `pull_request_recorded`; a controller killed before that event runs the step again on resume, finds
 * the request it opened, and updates it: never a duplicate. A failure is recorded, not thrown.
 */
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { openForge } from "../../forge/open-forge.ts";
import { gitResult } from "../../git/git.ts";
import { pullRequestBody, pullRequestTitle } from "../pull-request-body.ts";
import type { RunContext } from "../run-context.ts";
import { readState } from "../timeline.ts";

export async function openPullRequest(context: RunContext): Promise<void> {
  const state = context.state();
  const finish = state.spec.finish;
  const sha = state.finished?.sha ?? "";
  const remote = state.finished?.remote;
  const waits: string[] = [];
  const remoteUrl = remote ? await remoteUrlOf(context.loop.repoRoot, remote) : undefined;
  const opened = await openForge(finish, remoteUrl, { onWait: (message) => waits.push(message) });
  if ("problem" in opened) {
    const forge = finish.forge === "auto" ? undefined : finish.forge;
    await context.append("pull_request_recorded", { forge, sha, created: false, error: opened.problem });
    return;
  }
  const forge = opened.target.forge;
  const base = await pullRequestBase(context);
  const { events } = await readState(context.store, context.loop);
  const content = {
    title: pullRequestTitle(state),
    body: pullRequestBody(state, events, await dashboardUrl(context)),
  };
  try {
    const existing = await opened.client.findOpen(state.spec.branch, base);
    const reference = existing
      ? await opened.client.update(existing.number, content)
      : await opened.client.create({
          ...content,
          head: state.spec.branch,
          base,
          draft: finish.draft,
          labels: finish.labels,
        });
    await context.append("pull_request_recorded", {
      forge,
      sha,
      number: reference.number,
      url: reference.url,
      created: !existing,
      ...(waits.length > 0 ? { waits } : {}),
    });
  } catch (error) {
    await context.append("pull_request_recorded", {
      forge,
      sha,
      created: false,
      error: error instanceof Error ? error.message : String(error),
      ...(waits.length > 0 ? { waits } : {}),
    });
  }
}

/**
 * `finish.base`, else the branch the loop started from, recorded when it was created (the user may have
 * switched branches since); for a loop created before that was recorded, the branch as it stands now.
 */
export async function pullRequestBase(context: Pick<RunContext, "loop" | "state">): Promise<string> {
  const state = context.state();
  const spec = state.spec;
  if (spec.finish.base) return spec.finish.base;
  if (state.startBranch) return state.startBranch;
  if (spec.base !== "HEAD") {
    const branch = await gitResult(
      ["rev-parse", "--verify", "--quiet", `refs/heads/${spec.base}`],
      context.loop.repoRoot,
    );
    if (branch.code === 0) return spec.base;
  }
  const current = await gitResult(["symbolic-ref", "--quiet", "--short", "HEAD"], context.loop.repoRoot, {
    trim: true,
  });
  return current.code === 0 ? current.stdout : "main";
}

export async function remoteUrlOf(root: string, remote: string): Promise<string | undefined> {
  const result = await gitResult(["remote", "get-url", remote], root, { trim: true });
  return result.code === 0 ? result.stdout : undefined;
}

/** The loop's dashboard page when a service is configured (its service.json in the loopwright home). */
export async function dashboardUrl(context: RunContext): Promise<string | undefined> {
  try {
    const info = JSON.parse(await readFile(join(dirname(context.layout.database), "service.json"), "utf8"));
    return typeof info.url === "string"
      ? `${info.url.replace(/\/+$/, "")}/loops/${encodeURIComponent(context.loop.id)}`
      : undefined;
  } catch {
    return undefined;
  }
}
