/**
 * `finish.ci`'s steps. `watchCi` takes one look at the forge's checks on the pushed commit (the first
 * look of a round records `ci_watch_started` with its deadline), records the standing when it changed
 * (`ci_checks_recorded`), and sleeps until the next look is due: `poll`, growing with the time waited up
 * to a minute. A failed check's logs are downloaded and digested before the failed standing is recorded,
 * so a controller killed meanwhile looks again on resume and records the round once. Once a round
 * settles, the pull request's body is updated with the CI standing. `startCiRepair` records the repair.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { CiCheckRecord, CiFailureRecord, EventPayloads } from "../../core/events.ts";
import { type CiCheck, type CiClient, standingOf } from "../../forge/ci-checks.ts";
import { openForge } from "../../forge/open-forge.ts";
import { digestLog, renderDigest } from "../../gates/digest/index.ts";
import { type CiRound, ciRoundOf, isSettled } from "../ci-state.ts";
import { pullRequestBody, pullRequestTitle } from "../pull-request-body.ts";
import type { RunContext } from "../run-context.ts";
import { readState } from "../timeline.ts";
import { dashboardUrl, remoteUrlOf } from "./open-pull-request.ts";

/** The longest pause between two looks, however long the watch has waited. */
const longestPollMs = 60_000;
/** The rendered digest of one failed job's log, as the repair brief quotes it. */
const digestBytes = 12 * 1024;

export async function watchCi(context: RunContext, sha: string, roundNumber: number): Promise<void> {
  const state = context.state();
  const ci = state.spec.finish.ci;
  if (!ci) return;
  if (!ciRoundOf(state, sha)) {
    const deadline = ci.wait > 0 ? new Date(context.now() + ci.wait).toISOString() : undefined;
    await context.append("ci_watch_started", { sha, round: roundNumber, ...(deadline ? { deadline } : {}) });
  }
  const round = ciRoundOf(context.state(), sha) as CiRound;
  if (round.deadline && context.now() >= Date.parse(round.deadline)) {
    const error = round.error ? { error: round.error } : {};
    await record(context, { sha, standing: "timed_out", checks: round.checks, ...error });
    return;
  }
  const waits: string[] = [];
  const remote = state.finished?.remote;
  const remoteUrl = remote ? await remoteUrlOf(context.loop.repoRoot, remote) : undefined;
  const opened = await openForge(state.spec.finish, remoteUrl, { onWait: (message) => waits.push(message) });
  const looked =
    "problem" in opened ? { error: opened.problem } : await look(context, opened.ci, sha).catch(describe);
  if ("error" in looked) {
    if (looked.error !== round.error || waits.length > 0)
      await record(context, { sha, standing: "pending", checks: round.checks, error: looked.error, waits });
  } else {
    const { standing, checks, failures } = looked;
    if (standing !== round.standing || !sameChecks(checks, round.checks) || waits.length > 0 || round.error)
      await record(context, { sha, standing, checks, ...(failures ? { failures } : {}), waits });
    if (isSettled(standing)) return;
  }
  await sleep(nextLookIn(context, round, ci.poll), undefined, { signal: context.cancelSignal }).catch(
    () => {},
  );
}

/** Records a repair of the failed checks on `sha`, with their digests, for the next iteration's brief. */
export async function startCiRepair(context: RunContext, sha: string): Promise<void> {
  const state = context.state();
  const failures = ciRoundOf(state, sha)?.failures ?? [];
  await context.append("ci_repair_started", { sha, round: (state.ci?.repairs ?? 0) + 1, failures });
}

async function look(
  context: RunContext,
  client: CiClient,
  sha: string,
): Promise<{
  standing: "pending" | "passed" | "failed";
  checks: CiCheckRecord[];
  failures?: CiFailureRecord[];
}> {
  const found = await client.checks(sha);
  const checks = found.map(({ name, kind, state, url }) => ({ name, kind, state, ...(url ? { url } : {}) }));
  const standing = standingOf(checks);
  if (standing !== "failed") return { standing, checks };
  const failures: CiFailureRecord[] = [];
  for (const check of found.filter((candidate) => candidate.state === "failed"))
    failures.push(...(await digestFailedCheck(context, client, sha, check)));
  return { standing, checks, failures };
}

/** Downloads a failed check's logs next to the loop's other files and digests them like a gate's log. */
async function digestFailedCheck(
  context: RunContext,
  client: CiClient,
  sha: string,
  check: CiCheck,
): Promise<CiFailureRecord[]> {
  const folder = join(context.layout.loopDirectory(context.loop.id), "ci", sha.slice(0, 12));
  await mkdir(folder, { recursive: true });
  const logs = await client.failedLogs(check);
  return Promise.all(
    logs.map(async (log, index) => {
      const logPath = join(folder, `${fileName(check.name)}${logs.length > 1 ? `-${index + 1}` : ""}.log`);
      // A CI log can print anything, a secret included: only the redacted text is kept or quoted.
      await writeFile(logPath, context.redact(log.text));
      // Read back from the file, as a gate's log is: the digester streams it, whatever its size.
      const digest = await digestLog(logPath);
      return {
        check: check.name,
        ...(check.url ? { url: check.url } : {}),
        logSource: log.source,
        logPath,
        failures: digest.failures.slice(0, 20).map((failure) => failure.name),
        digest: context.redact(renderDigest(digest, digestBytes)),
      };
    }),
  );
}

async function record(context: RunContext, data: EventPayloads["ci_checks_recorded"]): Promise<void> {
  const { waits, ...rest } = data;
  await context.append("ci_checks_recorded", { ...rest, ...(waits && waits.length > 0 ? { waits } : {}) });
  if (isSettled(data.standing)) await updatePullRequestBody(context);
}

/** The pull request's body again, now with the round's CI standing; a failure is left for the next update. */
async function updatePullRequestBody(context: RunContext): Promise<void> {
  const state = context.state();
  const number = state.pullRequest?.number;
  if (number === undefined) return;
  const remote = state.finished?.remote;
  const remoteUrl = remote ? await remoteUrlOf(context.loop.repoRoot, remote) : undefined;
  const opened = await openForge(state.spec.finish, remoteUrl);
  if ("problem" in opened) return;
  const { events } = await readState(context.store, context.loop);
  const body = pullRequestBody(state, events, await dashboardUrl(context));
  await opened.client.update(number, { title: pullRequestTitle(state), body }).catch(() => {});
}

/** `poll` at first, then an eighth of the time waited so far, at most a minute; never past the deadline. */
function nextLookIn(context: RunContext, round: CiRound, pollMs: number): number {
  const waited = context.now() - Date.parse(round.startedAt);
  const interval = Math.min(Math.max(pollMs, waited / 8), Math.max(pollMs, longestPollMs));
  const left = round.deadline ? Date.parse(round.deadline) - context.now() : interval;
  return Math.max(0, Math.min(interval, left));
}

function sameChecks(a: readonly CiCheckRecord[], b: readonly CiCheckRecord[]): boolean {
  const key = (checks: readonly CiCheckRecord[]) =>
    checks
      .map((check) => `${check.kind}:${check.name}:${check.state}`)
      .sort()
      .join("\n");
  return key(a) === key(b);
}

function describe(error: unknown): { error: string } {
  return { error: error instanceof Error ? error.message : String(error) };
}

function fileName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, "-").slice(0, 80) || "check";
}
