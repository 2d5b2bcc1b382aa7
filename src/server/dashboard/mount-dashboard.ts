/**
 * `mountDashboard(app, deps)`: adds the dashboard's pages to the server's hono app. Pages are rendered
 * on the server from the application layer (src/app/) and read fine without JavaScript; a small script
 * (served from /assets) makes them live through the API's Server-Sent Events. Every owner action checks
 * the page's secret, Origin and Host; every rendered answer passes through the HTML redactor.
 */
import { isAbsolute } from "node:path";
import type { Context, Hono } from "hono";
import { html } from "hono/html";
import type { AppContext } from "../../app/app-context.ts";
import { cancelLoop } from "../../app/cancel-loop.ts";
import { listLoops } from "../../app/list-loops.ts";
import { createLoopCache } from "../../app/loop-cache.ts";
import { pauseLoop } from "../../app/pause-loop.ts";
import { resumeLoop } from "../../app/resume-loop.ts";
import { listScheduleViews } from "../../app/schedules.ts";
import { steerLoop } from "../../app/steer-loop.ts";
import { submitLoop } from "../../app/submit-loop.ts";
import type { Actor } from "../../core/events.ts";
import { maximumSpecBytes } from "../../core/spec-file.ts";
import { LoopBusyError, LoopNotFoundError, SpecError, UsageError } from "../../errors.ts";
import type { Store } from "../../store/store.ts";
import { type FormMessage, type SteerFormValues, secretField } from "./action-forms.ts";
import { refuseAction } from "./action-guard.ts";
import { serveAsset } from "./assets.ts";
import { briefPage } from "./brief-page.ts";
import { diffPage } from "./diff-page.ts";
import { filePage, loopCommits, readFileAtCommit, safeRepositoryPath } from "./file-page.ts";
import { findGateRun, gateLogPage } from "./gate-log-page.ts";
import { createHtmlRedactor } from "./html-redaction.ts";
import { iterationPage } from "./iteration-page.ts";
import { livePart, loopFragment, loopPage } from "./loop-page.ts";
import { type LoopView, readLoopView } from "./loop-view.ts";
import { loopsFragment } from "./loops-page.ts";
import { newLoopPage } from "./new-loop-page.ts";
import { page } from "./page-layout.ts";
import { steerBodyFromForm } from "./steer-form-body.ts";

export interface DashboardDependencies {
  store: Store;
  home: string;
  /** The per-service secret every form embeds and every action checks. */
  secret: string;
  /** The application layer's context; default: the store and home with a replay cache. */
  context?: AppContext;
  /** Host names besides loopback this server answers to (its `--host`). */
  hosts?: string[];
  /** Who acts through a request; default `{via: "web", name: "loopback"}`. */
  actorOf?: (context: Context) => Actor;
  /** The folder a pasted spec's relative paths are read from, by default. */
  specFolder?: string;
  /** Where secret values come from (default process.env): none of them is ever rendered. */
  env?: NodeJS.ProcessEnv;
}

type OwnerAction = "steer" | "pause" | "resume" | "cancel";

export function mountDashboard(app: Hono, deps: DashboardDependencies): void {
  const context: AppContext = deps.context ?? {
    store: deps.store,
    home: deps.home,
    cache: createLoopCache(),
  };
  const redact = createHtmlRedactor(deps.env);
  const actorOf = deps.actorOf ?? (() => ({ via: "web", name: "loopback" }));
  const findView = async (reference: string): Promise<LoopView | undefined> => {
    const loop = await deps.store.findLoop(reference);
    return loop ? readLoopView(context, loop) : undefined;
  };
  const loopsPart = async () => {
    const list = await listLoops(context);
    const schedules = await listScheduleViews(context, { all: true, firings: 3 });
    return livePart("loops", loopsFragment(list.loops, schedules, list.warnings));
  };

  // Every HTML answer is redacted on its way out.
  const redactPages = async (request: Context, next: () => Promise<void>) => {
    await next();
    if (!request.res.headers.get("content-type")?.startsWith("text/html")) return;
    const text = redact(await request.res.text());
    request.res = new Response(text, { status: request.res.status, headers: request.res.headers });
  };
  for (const path of ["/", "/fragments/*", "/loops", "/loops/*"]) app.use(path, redactPages);

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
    request.html(newLoopPage(deps.secret, { folder: deps.specFolder ?? "" })),
  );
  app.post("/loops", async (request) => {
    const form = await request.req.parseBody({ all: true });
    const refused = guard(request, deps, form);
    if (refused) return refused;
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
      const { loop } = await submitLoop({
        context,
        source: { text: values.spec, label: values.label, directory: values.folder },
        by: actorOf(request),
      });
      return request.redirect(`/loops/${encodeURIComponent(loop.id)}`, 303);
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
    return request.html(
      loopPage(view, { secret: deps.secret, message: noticeOf(request.req.query("notice")) }),
    );
  });
  app.get("/loops/:id/fragments/live", async (request) => {
    const view = await findView(request.req.param("id"));
    if (!view) return notFound(request);
    return request.html(loopFragment(view, deps.secret));
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
    const number = Number(request.req.param("iteration"));
    const result =
      view?.state && Number.isInteger(number)
        ? findGateRun(view.state, number, request.req.param("gate"), request.req.param("phase"))
        : undefined;
    if (!view || !result) return notFound(request);
    const from = Math.max(1, Math.floor(Number(request.req.query("from") ?? 1)) || 1);
    return request.html(await gateLogPage(view, number, result, from));
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
      const refused = guard(request, deps, form);
      if (refused) return refused;
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

function guard(
  request: Context,
  deps: DashboardDependencies,
  form: Record<string, unknown>,
): Response | Promise<Response> | undefined {
  const refusal = refuseAction(
    {
      host: request.req.header("host"),
      origin: request.req.header("origin"),
      secret: text(form[secretField]) || undefined,
    },
    { secret: deps.secret, hosts: deps.hosts },
  );
  return refusal ? request.html(problemPage("Refused", refusal), 403) : undefined;
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
