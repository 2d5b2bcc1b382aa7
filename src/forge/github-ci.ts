/**
 * GitHub's checks on a commit: check runs (GitHub Actions jobs and other apps) and commit statuses
 * (the combined status: the latest per context). A failed Actions check run's log is its workflow
 * job's log (the check run id is the job id); another app's check run has only its output text; a
 * commit status has no log at all, only a description and a target URL.
 */
import type { CiCheck, CiClient, CiLog } from "./ci-checks.ts";
import { runState, statusState } from "./ci-checks.ts";
import { plainCiLog } from "./ci-log-text.ts";
import type { ForgeClientOptions } from "./forge-client.ts";
import { asForgeError, splitRepository } from "./github-client.ts";
import { githubOctokit } from "./github-octokit.ts";

export function githubCi(options: ForgeClientOptions & { tokenSource: string }): CiClient {
  const [owner, repo] = splitRepository(options.target.repository);
  const octokit = githubOctokit(options);
  const fail = (error: unknown): never => {
    throw asForgeError(error, options.tokenSource);
  };
  return {
    async checks(sha) {
      const runs = await octokit
        .paginate(octokit.rest.checks.listForRef, { owner, repo, ref: sha, per_page: 100, filter: "latest" })
        .catch(fail);
      const combined = await octokit.rest.repos
        .getCombinedStatusForRef({ owner, repo, ref: sha, per_page: 100 })
        .catch(fail);
      const checks: CiCheck[] = runs.map((run) => ({
        name: run.name,
        kind: "check-run",
        state: runState(run.status, run.conclusion),
        url: run.html_url ?? run.details_url ?? undefined,
        ...(run.app?.slug === "github-actions" ? { logId: run.id } : {}),
        detail: [run.output?.title, run.output?.summary, run.output?.text].filter(Boolean).join("\n"),
      }));
      for (const status of combined.data.statuses)
        checks.push({
          name: status.context,
          kind: "status",
          state: statusState(status.state),
          url: status.target_url ?? undefined,
          detail: status.description ?? "",
        });
      return checks;
    },
    async failedLogs(check): Promise<CiLog[]> {
      if (check.logId !== undefined) {
        const { data } = await octokit.rest.actions
          .downloadJobLogsForWorkflowRun({ owner, repo, job_id: check.logId })
          .catch(fail);
        // The log's blob storage may answer application/octet-stream: Octokit then gives an ArrayBuffer.
        const raw: unknown = data;
        const text =
          typeof raw === "string"
            ? raw
            : raw instanceof ArrayBuffer
              ? new TextDecoder().decode(raw)
              : String(raw ?? "");
        return [{ text: plainCiLog(text), source: "job log" }];
      }
      if (check.kind === "check-run") return [{ text: check.detail ?? "", source: "check output" }];
      return [
        {
          text: check.detail ?? "",
          source: `status only: a commit status has no log API; see ${check.url ?? "the status's target"}`,
        },
      ];
    },
  };
}
