/**
 * Gitea's and Forgejo's checks on a commit: the combined commit status (every context's latest) and,
 * where the server has the Actions API (Gitea 1.24+), the Actions runs for the SHA. A failed run's log
 * is each failed job's log; a failed status with no run behind it (an external CI, or a server without
 * the Actions API) has no log to read: its description and target URL are all there is.
 */
import { type CiCheck, type CiClient, type CiLog, runState, statusState } from "./ci-checks.ts";
import { plainCiLog } from "./ci-log-text.ts";
import { type ForgeClientOptions, ForgeRequestError } from "./forge-client.ts";
import { forgeFetch } from "./forge-fetch.ts";

interface CombinedStatus {
  state: string;
  statuses: { context: string; status: string; target_url?: string; description?: string }[] | null;
}
interface WorkflowRun {
  id: number;
  status: string;
  conclusion?: string | null;
  display_title?: string;
  path?: string;
  html_url: string;
  head_sha?: string;
}
interface WorkflowJob {
  id: number;
  name: string;
  status: string;
  conclusion?: string | null;
  html_url?: string;
}

export function giteaCi(options: ForgeClientOptions & { tokenSource: string }): CiClient {
  const repository = `${options.target.api}/repos/${options.target.repository}`;
  const describe = (status: number, detail: string) => {
    if (status === 401)
      return `Gitea refused the token from ${options.tokenSource} (401 ${detail}): renew it or set GITEA_TOKEN to a valid token`;
    if (status === 0) return `Gitea API unreachable: ${detail}`;
    return `Gitea API answered ${status}: ${detail}`;
  };
  const call = <T>(path: string, text = false) =>
    forgeFetch<T>(`${repository}${path}`, {
      headers: { authorization: `token ${options.token}`, "user-agent": "loopwright" },
      onWait: options.onWait && ((message) => options.onWait?.(`Gitea ${message}`)),
      maxWaitMs: options.maxWaitMs,
      describe,
      text,
    });
  /** The Actions API answers 404 on servers without it: no runs, then. */
  const optional = <T>(request: Promise<T>, empty: T) =>
    request.catch((error: unknown) => {
      if (error instanceof ForgeRequestError && error.status === 404) return empty;
      throw error;
    });
  return {
    async checks(sha) {
      const combined = await call<CombinedStatus>(`/commits/${sha}/status`);
      const runs = await optional(
        call<{ workflow_runs: WorkflowRun[] | null } | WorkflowRun[]>(
          `/actions/runs?head_sha=${sha}&limit=50`,
        ),
        [],
      );
      const ownRuns = (Array.isArray(runs) ? runs : (runs.workflow_runs ?? [])).filter(
        (run) => !run.head_sha || run.head_sha === sha,
      );
      const checks: CiCheck[] = ownRuns.map((run) => ({
        name: run.display_title
          ? `${run.path ?? "workflow"}: ${run.display_title}`
          : (run.path ?? `run ${run.id}`),
        kind: "actions-run",
        state: runState(run.status, run.conclusion),
        url: run.html_url,
        logId: run.id,
      }));
      // Actions report each job as a commit status too: those are the runs above, not other checks.
      const runUrls = ownRuns.map((run) => run.html_url);
      for (const status of combined.statuses ?? []) {
        if (status.target_url && runUrls.some((url) => status.target_url?.startsWith(url))) continue;
        checks.push({
          name: status.context,
          kind: "status",
          state: statusState(status.status),
          url: status.target_url,
          detail: status.description ?? "",
        });
      }
      return checks;
    },
    async failedLogs(check): Promise<CiLog[]> {
      if (check.kind !== "actions-run" || check.logId === undefined)
        return [
          {
            text: check.detail ?? "",
            source: `status only: Gitea keeps no log for a commit status; see ${check.url ?? "its target URL"}`,
          },
        ];
      // Gitea answers `{ total_count, jobs }`; some Forgejo versions a bare array.
      const answer = await call<{ jobs: WorkflowJob[] | null } | WorkflowJob[]>(
        `/actions/runs/${check.logId}/jobs`,
      );
      const jobs = Array.isArray(answer) ? answer : (answer.jobs ?? []);
      const failed = jobs.filter((job) => runState(job.status, job.conclusion) === "failed");
      const logs: CiLog[] = [];
      for (const job of failed)
        logs.push({
          text: plainCiLog(await call<string>(`/actions/jobs/${job.id}/logs`, true)),
          source: `job log (${job.name})`,
        });
      return logs;
    },
  };
}
