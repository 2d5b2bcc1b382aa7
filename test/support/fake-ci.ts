/**
 * CI on the forge stand-ins: what each forge's API answers about the checks on a commit, in the shapes
 * of its published description. GitHub: check runs (`/commits/{ref}/check-runs`, app `github-actions`)
 * and the combined status (`/commits/{ref}/status`), a job's log as a 302 to a text download; GitLab:
 * pipelines by `sha`, a pipeline's jobs, a job's `trace` as text with section markers and colours;
 * Gitea: the combined status (`status` per entry), Actions runs by `head_sha`, a run's jobs, a job's
 * log as text. The test says what CI makes of each commit it sees, in order.
 */

/** `fail`: the test job fails with `failLog`; `pass`: every job passes; `silent`: no check ever appears. */
export type CiOutcome = "fail" | "pass" | "silent";

export interface FakeCi {
  /** Outcomes for the commits CI is asked about, in the order first asked; past the end, the last one. */
  outcomes: CiOutcome[];
  /** How many looks at a commit answer "running" before its outcome shows. */
  pendingLooks: number;
  /** The failing job's output, as the test runner printed it. */
  failLog: string;
  /** The commits asked about, in order. */
  shas: string[];
  /** Job log downloads served. */
  logDownloads: number;
  /** Answer the next N CI requests with a rate limit (retry-after: 1). */
  rateLimitNext(count: number): void;
  /** Gitea/Forgejo without the Actions API (before Gitea 1.24): its `/actions/...` paths answer 404. */
  noActionsApi?: boolean;
}

/** An answer of a forge stand-in: JSON (`data`) or text (`text`), with headers. */
export interface FakeAnswer {
  status: number;
  data?: unknown;
  text?: string;
  headers?: Record<string, string>;
}

interface Internal extends FakeCi {
  limited: number;
  looks: Map<string, number>;
}

export function createFakeCi(
  options: Partial<Pick<FakeCi, "outcomes" | "pendingLooks" | "failLog">> = {},
): FakeCi {
  const ci: Internal = {
    outcomes: options.outcomes ?? ["pass"],
    pendingLooks: options.pendingLooks ?? 1,
    failLog: options.failLog ?? "",
    shas: [],
    logDownloads: 0,
    limited: 0,
    looks: new Map(),
    rateLimitNext(count) {
      ci.limited = count;
    },
  };
  return ci;
}

/** What CI shows for `sha` on this look: running, or its outcome. Counts the look. */
function lookAt(ci: FakeCi, sha: string): "running" | CiOutcome {
  const internal = ci as Internal;
  if (!ci.shas.includes(sha)) ci.shas.push(sha);
  const outcome = ci.outcomes[Math.min(ci.shas.indexOf(sha), ci.outcomes.length - 1)];
  const looks = (internal.looks.get(sha) ?? 0) + 1;
  internal.looks.set(sha, looks);
  if (outcome === "silent") return "silent";
  return looks <= ci.pendingLooks ? "running" : outcome;
}

/** The outcome of `sha` without counting a look (for job lists and logs). */
function outcomeOf(ci: FakeCi, sha: string): CiOutcome {
  return ci.outcomes[Math.min(Math.max(0, ci.shas.indexOf(sha)), ci.outcomes.length - 1)];
}

function rateLimited(ci: FakeCi, status: number, message: string): FakeAnswer | undefined {
  const internal = ci as Internal;
  if (internal.limited <= 0) return undefined;
  internal.limited--;
  return { status, data: { message }, headers: { "retry-after": "1" } };
}

const stamp = (text: string) =>
  text
    .split("\n")
    .map((line) => `2026-12-01T10:00:01.1234567Z ${line}`)
    .join("\n");

/** GitHub: `rest` is the path after `/repos/{owner}/{repo}`. */
export function answerGithubCi(
  ci: FakeCi,
  method: string,
  rest: string,
  base: string,
): FakeAnswer | undefined {
  if (method !== "GET") return undefined;
  const checkRuns = /^\/commits\/([0-9a-f]{40})\/check-runs$/.exec(rest);
  const status = /^\/commits\/([0-9a-f]{40})\/status$/.exec(rest);
  const jobLog = /^\/actions\/jobs\/(\d+)\/logs$/.exec(rest);
  const download = /^\/_blob\/job-logs\/(\d+)$/.exec(rest);
  if (!checkRuns && !status && !jobLog && !download) return undefined;
  const limited = rateLimited(
    ci,
    403,
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
  );
  if (limited) return limited;
  if (checkRuns) {
    const sha = checkRuns[1];
    const seen = lookAt(ci, sha);
    if (seen === "silent") return { status: 200, data: { total_count: 0, check_runs: [] } };
    const index = ci.shas.indexOf(sha);
    const run = (id: number, name: string, conclusion: string | null) => ({
      id,
      head_sha: sha,
      node_id: `CR_${id}`,
      external_id: "",
      url: `${base}/check-runs/${id}`,
      html_url: `https://github.example/acme/widget/actions/runs/77/job/${id}`,
      details_url: `https://github.example/acme/widget/actions/runs/77/job/${id}`,
      status: conclusion ? "completed" : "in_progress",
      conclusion,
      started_at: "2026-12-01T10:00:00Z",
      completed_at: conclusion ? "2026-12-01T10:00:05Z" : null,
      output: { title: null, summary: null, text: null, annotations_count: 0, annotations_url: "" },
      name,
      check_suite: { id: 9 },
      app: { id: 15368, slug: "github-actions", name: "GitHub Actions" },
      pull_requests: [],
    });
    const running = seen === "running";
    const test = running ? null : seen === "fail" ? "failure" : "success";
    return {
      status: 200,
      data: {
        total_count: 2,
        check_runs: [
          run(5000 + index * 10 + 1, "test", test),
          run(5000 + index * 10 + 2, "lint", running ? null : "success"),
        ],
      },
    };
  }
  if (status) {
    const sha = status[1];
    const silent = outcomeOf(ci, sha) === "silent" || !ci.shas.includes(sha);
    const statuses = silent
      ? []
      : [
          {
            url: `${base}/statuses/${sha}`,
            id: 1,
            state: "success",
            description: "license scan passed",
            target_url: "https://scanner.example/acme/widget",
            context: "license/scan",
            created_at: "2026-12-01T10:00:00Z",
            updated_at: "2026-12-01T10:00:00Z",
          },
        ];
    return {
      status: 200,
      data: { state: silent ? "pending" : "success", sha, total_count: statuses.length, statuses },
    };
  }
  if (jobLog) return { status: 302, text: "", headers: { location: `${base}/_blob/job-logs/${jobLog[1]}` } };
  ci.logDownloads++;
  return {
    status: 200,
    text: stamp(`##[group]Run pytest\n${ci.failLog}\n##[error]Process completed with exit code 1.`),
    // The blob storage behind the redirect serves the log as bytes, not as text.
    headers: { "content-type": "application/octet-stream" },
  };
}

/** GitLab: `rest` is the path after `/projects/{id}`. */
export function answerGitlabCi(
  ci: FakeCi,
  method: string,
  rest: string,
  query: URLSearchParams,
  web: string,
) {
  if (method !== "GET") return undefined;
  const pipelines = rest === "/pipelines";
  const jobs = /^\/pipelines\/(\d+)\/jobs$/.exec(rest);
  const trace = /^\/jobs\/(\d+)\/trace$/.exec(rest);
  if (!pipelines && !jobs && !trace) return undefined;
  const limited = rateLimited(ci, 429, "429 Too Many Requests");
  if (limited) return limited;
  if (pipelines) {
    const sha = query.get("sha") ?? "";
    const seen = lookAt(ci, sha);
    if (seen === "silent") return { status: 200, data: [] };
    const id = 300 + ci.shas.indexOf(sha);
    return {
      status: 200,
      data: [
        {
          id,
          iid: id - 299,
          project_id: 7,
          sha,
          ref: "loop",
          status: seen === "running" ? "running" : seen === "fail" ? "failed" : "success",
          source: "push",
          created_at: "2026-12-01T10:00:00.000Z",
          updated_at: "2026-12-01T10:00:05.000Z",
          web_url: `${web}/-/pipelines/${id}`,
        },
      ],
    };
  }
  if (jobs) {
    const pipeline = Number(jobs[1]);
    const sha = ci.shas[pipeline - 300] ?? "";
    const internal = ci as Internal;
    const running = (internal.looks.get(sha) ?? 0) <= ci.pendingLooks;
    const outcome = outcomeOf(ci, sha);
    const job = (id: number, name: string, stage: string, status: string) => ({
      id,
      name,
      stage,
      status,
      allow_failure: false,
      ref: "loop",
      web_url: `${web}/-/jobs/${id}`,
      pipeline: { id: pipeline, project_id: 7, sha, status },
      created_at: "2026-12-01T10:00:00.000Z",
    });
    const testStatus = running ? "running" : outcome === "fail" ? "failed" : "success";
    return {
      status: 200,
      data: [
        job(pipeline * 10 + 1, "pytest", "test", testStatus),
        job(pipeline * 10 + 2, "lint", "test", running ? "running" : "success"),
      ],
    };
  }
  ci.logDownloads++;
  const esc = String.fromCharCode(27);
  return {
    status: 200,
    text:
      `${esc}[0Ksection_start:1764583200:prepare_script\r${esc}[0K${esc}[0K${esc}[36;1mPreparing environment${esc}[0;m\n` +
      `section_end:1764583201:prepare_script\r${esc}[0K\n${esc}[0Ksection_start:1764583201:step_script\r${esc}[0K` +
      `${esc}[32;1m$ pytest${esc}[0;m\n${ci.failLog}\nsection_end:1764583205:step_script\r${esc}[0K\n` +
      `${esc}[31;1mERROR: Job failed: exit code 1\n${esc}[0;m\n`,
    headers: { "content-type": "text/plain" },
  };
}

/** Gitea/Forgejo: `rest` is the path after `/repos/{owner}/{repo}`. */
export function answerGiteaCi(ci: FakeCi, method: string, rest: string, query: URLSearchParams, web: string) {
  if (method !== "GET") return undefined;
  const status = /^\/commits\/([0-9a-f]{40})\/status$/.exec(rest);
  const runs = rest === "/actions/runs";
  const jobs = /^\/actions\/runs\/(\d+)\/jobs$/.exec(rest);
  const log = /^\/actions\/jobs\/(\d+)\/logs$/.exec(rest);
  if (!status && !runs && !jobs && !log) return undefined;
  if (ci.noActionsApi && !status) return { status: 404, data: { message: "404 page not found" } };
  const limited = rateLimited(ci, 429, "rate limit exceeded");
  if (limited) return limited;
  const runId = (sha: string) => 70 + ci.shas.indexOf(sha);
  const conclusionOf = (sha: string) => {
    const internal = ci as Internal;
    if ((internal.looks.get(sha) ?? 0) <= ci.pendingLooks) return undefined;
    return outcomeOf(ci, sha) === "fail" ? "failure" : "success";
  };
  if (status) {
    const sha = status[1];
    const seen = lookAt(ci, sha);
    if (seen === "silent") return { status: 200, data: { state: "", sha, total_count: 0, statuses: [] } };
    const conclusion = conclusionOf(sha);
    const state = conclusion ?? "pending";
    const statuses = [
      {
        id: 1,
        status: state,
        target_url: `${web}/actions/runs/${runId(sha)}/jobs/0`,
        description: conclusion === "failure" ? "Failing after 5s" : "Has started running",
        context: "ci / pytest (push)",
        created_at: "2026-12-01T10:00:00Z",
        updated_at: "2026-12-01T10:00:05Z",
      },
    ];
    return { status: 200, data: { state, sha, total_count: 1, statuses } };
  }
  if (runs) {
    const sha = query.get("head_sha") ?? "";
    if (!ci.shas.includes(sha) || outcomeOf(ci, sha) === "silent")
      return { status: 200, data: { total_count: 0, workflow_runs: [] } };
    const conclusion = conclusionOf(sha);
    return {
      status: 200,
      data: {
        total_count: 1,
        workflow_runs: [
          {
            id: runId(sha),
            run_number: runId(sha),
            head_sha: sha,
            head_branch: "loop",
            event: "push",
            display_title: "loopwright repair",
            path: "ci.yml@refs/heads/loop",
            status: conclusion ? "completed" : "in_progress",
            conclusion: conclusion ?? null,
            html_url: `${web}/actions/runs/${runId(sha)}`,
            url: `${web}/api/v1/repos/acme/widget/actions/runs/${runId(sha)}`,
          },
        ],
      },
    };
  }
  if (jobs) {
    const run = Number(jobs[1]);
    const sha = ci.shas[run - 70] ?? "";
    const conclusion = conclusionOf(sha);
    return {
      status: 200,
      data: {
        total_count: 1,
        jobs: [
          {
            id: run * 10 + 1,
            run_id: run,
            head_sha: sha,
            name: "pytest",
            status: conclusion ? "completed" : "in_progress",
            conclusion: conclusion ?? null,
            html_url: `${web}/actions/runs/${run}/jobs/0`,
          },
        ],
      },
    };
  }
  ci.logDownloads++;
  return {
    status: 200,
    text: stamp(`Run pytest\n${ci.failLog}\n::error::Process completed with exit code 1.`),
    headers: { "content-type": "text/plain" },
  };
}
