/**
 * `mountDashboard(app, deps)`: adds the dashboard's pages to the app `createServer` builds (pass it as
 * its `mount` option). Pages are rendered on the server from the application layer (src/app/) and read
 * fine without JavaScript; a small script (served from /assets) makes them live through the API's
 * Server-Sent Events. The server's guard already holds every request (the Host check, and for each
 * action the Origin and the per-service secret that every form here embeds) and its redaction covers
 * every page: nothing here repeats them.
 */
import { isAbsolute } from "node:path";
import type { Context, Hono } from "hono";
import { html } from "hono/html";
import { cancelLoop } from "../../app/cancel-loop.ts";
import { listLoops } from "../../app/list-loops.ts";
import { pauseLoop } from "../../app/pause-loop.ts";
import { resumeLoop } from "../../app/resume-loop.ts";
import { listScheduleViews } from "../../app/schedules.ts";
import { steerLoop } from "../../app/steer-loop.ts";
import { submitSpec } from "../../app/submit-spec.ts";
import type { Actor } from "../../core/events.ts";
import { maximumSpecBytes } from "../../core/spec-file.ts";
import { LoopBusyError, LoopNotFoundError, SpecError, UsageError } from "../../errors.ts";
import type { ServerDependencies } from "../create-server.ts";
import { redactedAnswer, redactedBytes } from "../redact-answers.ts";
import { type FormMessage, type SteerFormValues, secretField } from "./action-forms.ts";
import { serveAsset } from "./assets.ts";
import { briefPage } from "./brief-page.ts";
import { diffPage } from "./diff-page.ts";
import { filePage, loopCommits, readFileAtCommit, safeRepositoryPath } from "./file-page.ts";
import { gateLogPage } from "./gate-log-page.ts";
import { iterationPage } from "./iteration-page.ts";
import { logPageLines } from "./links.ts";
import { createLineIndexCache, readLogLines } from "./log-page-lines.ts";
import { livePart, loopFragment, loopPage } from "./loop-page.ts";
import { type LoopView, readLoopView } from "./loop-view.ts";
import { loopsFragment } from "./loops-page.ts";
import { newLoopPage } from "./new-loop-page.ts";
import { createPageCache, loopPageKey } from "./page-cache.ts";
import { type Markup, page } from "./page-layout.ts";
import { steerBodyFromForm } from "./steer-form-body.ts";

/** What the dashboard uses of the server (`ServerDependencies` fits), and where pasted specs' paths start. */
export type DashboardDependencies = Pick<
  ServerDependencies,
  "store" | "home" | "secret" | "actorOf" | "context" | "redact"
> & {
  /** The folder a pasted spec's relative paths are read from, by default (default: the working directory). */
  specFolder?: string;
};

type OwnerAction = "steer" | "pause" | "resume" | "cancel";

export function mountDashboard(app: Hono, deps: DashboardDependencies): void {
  const { context, actorOf } = deps;
  const lineIndexes = createLineIndexCache();
  const pages = createPageCache();
  /** A loop's page or fragment: kept bytes when its key is unchanged, else rendered, redacted, kept. */
  const loopAnswer = async (key: string | undefined, render: () => Markup) => {
    let bytes = key === undefined ? undefined : pages.get(key);
    if (bytes === undefined) {
      bytes = redactedBytes(deps.redact, String(await render()));
      if (key !== undefined) pages.set(key, bytes);
    }
    return redactedAnswer(bytes, { headers: { "content-type": "text/html; charset=UTF-8" } });
  };
  const findView = async (reference: string): Promise<LoopView | undefined> => {
    const loop = await context.store.findLoop(reference);
    return loop ? readLoopView(context, loop) : undefined;
  };
  const loopsPart = async () => {
    const list = await listLoops(context);
    const schedules = await listScheduleViews(context, { all: true, firings: 3 });
    return livePart("loops", loopsFragment(list.loops, schedules, list.warnings));
  };

  app.get("/assets/:name", (request) => serveAsset(request, request.req.param("name")));

  app.get("/", async (request) =>
    request.html(
      page(
        { title: "Loops", liveEvents: "/api/events", liveFragment: "/fragments/loops", liveGap: 1000 },
        await loopsPart(),
      ),
    ),
  );
  app.get("/fragments/loops", async (request) => request.html(await loopsPart()));

  app.get("/loops/new", (request) =>
    request.html(newLoopPage(deps.secret, { folder: deps.specFolder ?? process.cwd() })),
  );
  app.post("/loops", async (request) => {
    const form = await request.req.parseBody({ all: true });
    const upload = form.spec_file;
    const file = upload instanceof File && upload.size > 0 ? upload : undefined;
    const values = {
      spec: file ? await file.text() : text(form.spec),
      folder: text(form.folder).trim(),
      label: file ? file.name : text(form.label).trim() || "spec.yaml",
    };
    try {
      if (!isAbsolute(values.folder))
        throw new SpecError([`${values.label}: folder: give an absolute path (got '${values.folder}')`]);
      if (!values.spec.trim())
        throw new SpecError([`${values.label}: the spec is empty; paste or upload one`]);
      if (Buffer.byteLength(values.spec) > maximumSpecBytes)
        throw new SpecError([`${values.label}: too large (a spec is at most 1 MiB)`]);
      const submitted = await submitSpec({
        context,
        source: { text: values.spec, label: values.label, directory: values.folder },
        by: actorOf(request),
      });
      // A spec with `schedule:` registers its schedule, listed on the loops page with its next firing.
      if (submitted.kind === "schedule") return request.redirect("/#schedules", 303);
      return request.redirect(`/loops/${encodeURIComponent(submitted.loop.id)}`, 303);
    } catch (error) {
      if (error instanceof SpecError)
        return request.html(newLoopPage(deps.secret, values, error.problems), 400);
      if (error instanceof UsageError)
        return request.html(newLoopPage(deps.secret, values, [error.message]), 400);
      throw error;
    }
  });

  app.get("/loops/:id", async (request) => {
    const view = await findView(request.req.param("id"));
    if (!view) return notFound(request);
    const message = noticeOf(request.req.query("notice"));
    if (message) return request.html(loopPage(view, { secret: deps.secret, message }));
    return loopAnswer(loopPageKey("page", view), () => loopPage(view, { secret: deps.secret }));
  });
  app.get("/loops/:id/fragments/live", async (request) => {
    const view = await findView(request.req.param("id"));
    if (!view) return notFound(request);
    return loopAnswer(loopPageKey("fragment", view), () => loopFragment(view, deps.secret));
  });
  app.get("/loops/:id/iterations/:iteration", async (request) => {
    const view = await findView(request.req.param("id"));
    const iteration = view?.state?.iterations.find(
      (item) => item.number === Number(request.req.param("iteration")),
    );
    if (!view?.state || !iteration) return notFound(request);
    return request.html(iterationPage(view, view.state, iteration));
  });
  app.get("/loops/:id/iterations/:iteration/brief", async (request) => {
    const view = await findView(request.req.param("id"));
    const iteration = view?.state?.iterations.find(
      (item) => item.number === Number(request.req.param("iteration")),
    );
    if (!view || !iteration) return notFound(request);
    return request.html(briefPage(view, iteration));
  });
  app.get("/loops/:id/iterations/:iteration/diff", async (request) => {
    const view = await findView(request.req.param("id"));
    const iteration = view?.state?.iterations.find(
      (item) => item.number === Number(request.req.param("iteration")),
    );
    if (!view || !iteration) return notFound(request);
    return request.html(await diffPage(context, view, iteration));
  });
  app.get("/loops/:id/iterations/:iteration/gates/:gate/:phase/log", async (request) => {
    const view = await findView(request.req.param("id"));
    if (!view) return notFound(request);
    const from = Math.max(1, Math.floor(Number(request.req.query("from") ?? 1)) || 1);
    const run = {
      iteration: request.req.param("iteration"),
      gate: request.req.param("gate"),
      phase: request.req.param("phase"),
    };
    const read = await readLogLines(
      context,
      view.loop.id,
      run,
      { from, count: logPageLines },
      {
        cache: lineIndexes,
        redact: deps.redact,
      },
    ).catch((error: unknown) => {
      // No such iteration, gate or run of it: the page is not there.
      if (error instanceof UsageError) return undefined;
      throw error;
    });
    if (!read) return notFound(request);
    return request.html(gateLogPage(view, read, from));
  });
  app.get("/loops/:id/files/:sha", async (request) => {
    const view = await findView(request.req.param("id"));
    const sha = request.req.param("sha");
    const path = safeRepositoryPath(request.req.query("path"));
    if (!view?.state || !path || !loopCommits(view.state).has(sha)) return notFound(request);
    const read = await readFileAtCommit(view.loop.repoRoot, sha, path);
    if (!read.ok) return request.html(problemPage("Not shown", read.problem), read.status);
    return request.html(filePage(view, sha, path, read.text));
  });

  const act = (action: OwnerAction, loopId: string, values: SteerFormValues, by: Actor) => {
    switch (action) {
      case "steer":
        return steerLoop(context, loopId, steerBodyFromForm(values), by);
      case "pause":
        return pauseLoop(context, loopId, by);
      case "resume":
        return resumeLoop(context, loopId, by);
      case "cancel":
        return cancelLoop(context, loopId, by);
    }
  };
  for (const action of ["steer", "pause", "resume", "cancel"] as const) {
    app.post(`/loops/:id/${action}`, async (request) => {
      const form = await request.req.parseBody({ all: true });
      const view = await findView(request.req.param("id"));
      if (!view?.state) return notFound(request);
      const values = formValues(form);
      try {
        const result = await act(action, view.loop.id, values, actorOf(request));
        const anchor = action === "steer" ? "steer-panel" : "controls";
        return request.redirect(
          `/loops/${encodeURIComponent(view.loop.id)}?notice=${encodeURIComponent(result.message)}#${anchor}`,
          303,
        );
      } catch (error) {
        if (!(error instanceof UsageError)) throw error;
        const status = error instanceof LoopNotFoundError ? 404 : error instanceof LoopBusyError ? 409 : 400;
        const fresh = (await findView(view.loop.id)) ?? view;
        const message: FormMessage = {
          kind: "error",
          text: error.message,
          form: action === "steer" ? "steer" : "control",
        };
        return request.html(loopPage(fresh, { secret: deps.secret, message, steerValues: values }), status);
      }
    });
  }
}

/** The notice a redirect after an action carries (text only; rendered escaped). */
function noticeOf(notice: string | undefined): FormMessage | undefined {
  if (!notice) return undefined;
  return {
    kind: "notice",
    text: notice.slice(0, 300),
    form: notice.startsWith("steering") ? "steer" : "control",
  };
}

/** A page that says what went wrong, in one line. */
function problemPage(title: string, problem: string) {
  return page({ title }, html`<h1>${title}</h1><p class="warning">${problem}</p>`);
}

function notFound(request: Context) {
  return request.html(problemPage("Not found", "No such loop, iteration, gate run or file."), 404);
}

function text(value: unknown): string {
  if (Array.isArray(value)) return text(value[0]);
  return typeof value === "string" ? value : "";
}

function formValues(form: Record<string, unknown>): SteerFormValues {
  const values: SteerFormValues = {};
  for (const [name, value] of Object.entries(form)) {
    if (name === secretField) continue;
    if (Array.isArray(value))
      values[name] = value.filter((entry): entry is string => typeof entry === "string");
    else if (typeof value === "string") values[name] = value;
  }
  return values;
}
