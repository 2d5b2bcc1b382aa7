/**
 * GitLab's checks on a commit: the jobs of the newest pipeline for the SHA (a pipeline without jobs
 * stands for itself). A failed job's log is its trace. A job allowed to fail counts as skipped.
 */
import type { CiCheck, CiClient } from "./ci-checks.ts";
import { plainCiLog } from "./ci-log-text.ts";
import type { ForgeClientOptions } from "./forge-client.ts";
import { asForgeError, gitlabApi } from "./gitlab-client.ts";

interface PipelineShape {
  id: number;
  status: string;
  web_url: string;
}
interface JobShape {
  id: number;
  name: string;
  stage?: string;
  status: string;
  allow_failure?: boolean;
  web_url: string;
}

export function gitlabCi(options: ForgeClientOptions & { tokenSource: string }): CiClient {
  const api = gitlabApi(options);
  const project = options.target.repository;
  const fail = (error: unknown): never => {
    throw asForgeError(error, options.tokenSource);
  };
  return {
    async checks(sha) {
      const pipelines = (await api.Pipelines.all(project, { sha, perPage: 20, maxPages: 1 }).catch(
        fail,
      )) as unknown as PipelineShape[];
      const newest = [...pipelines].sort((a, b) => b.id - a.id)[0];
      if (!newest) return [];
      const jobs = (await api.Jobs.all(project, { pipelineId: newest.id, perPage: 100, maxPages: 5 }).catch(
        fail,
      )) as unknown as JobShape[];
      if (jobs.length === 0)
        return [
          {
            name: `pipeline ${newest.id}`,
            kind: "pipeline",
            state: jobState(newest.status),
            url: newest.web_url,
          },
        ];
      return jobs.map(
        (job): CiCheck => ({
          name: job.stage ? `${job.stage}: ${job.name}` : job.name,
          kind: "job",
          state: job.allow_failure && job.status === "failed" ? "skipped" : jobState(job.status),
          url: job.web_url,
          logId: job.id,
        }),
      );
    },
    async failedLogs(check) {
      if (check.logId === undefined) return [{ text: "", source: "pipeline without jobs: no log" }];
      const trace = await api.Jobs.showLog(project, check.logId).catch(fail);
      return [{ text: plainCiLog(String(trace ?? "")), source: "job trace" }];
    },
  };
}

/** GitLab's pipeline and job statuses. */
function jobState(status: string): CiCheck["state"] {
  if (status === "success") return "passed";
  if (status === "failed" || status === "canceled") return "failed";
  if (status === "skipped" || status === "manual") return "skipped";
  return "pending";
}
