/**
 * `mountDashboard(app, deps)`: adds the dashboard's pages to the server's hono app. Pages are rendered
 * on the server and read fine without JavaScript; a small script (served from /assets) makes them live
 * through the API's Server-Sent Events. Every owner action checks the page's secret, Origin and Host;
 * every rendered answer passes through the HTML redactor.
 */
import type { Context, Hono } from "hono";
import { html } from "hono/html";
import { LoopBusyError, LoopNotFoundError, SpecError, UsageError } from "../../errors.ts";
import { runLoop } from "../../loop/runner.ts";
import type { LoopRecord, Store } from "../../store/store.ts";
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
import { loopsFragment, type ScheduleRow } from "./loops-page.ts";
import { newLoopPage } from "./new-loop-page.ts";
import { cancelLoop, pauseLoop, resumeLoop, steerInputFromForm, steerLoop } from "./owner-actions.ts";
import { page } from "./page-layout.ts";
import { createLoopFromText } from "./submit-spec.ts";
import type { Actor } from "./timeline-view.ts";

export interface DashboardDependencies {
  store: Store;
  home: string;
  /** The per-service secret every form embeds and every action checks. */
  secret: string;
  /** Host names besides loopback this server answers to (its `--host`). */
  hosts?: string[];
  /** Who acts through a request; default `{via: "web", name: "loopback"}`. */
  actorOf?: (context: Context) => Actor;
  /** Runs a loop in the background; default: in this process, without waiting. */
  startInBackground?: (loop: LoopRecord, command: "run" | "resume") => void;
  /** The scheduled loops, for the loops page. */
  listSchedules?: () => Promise<ScheduleRow[]>;
  /** The folder a pasted spec's relative paths are read from, by default. */
  specFolder?: string;
  /** Where secret values come from (default process.env): none of them is ever rendered. */
  env?: NodeJS.ProcessEnv;
}

export function mountDashboard(app: Hono, deps: DashboardDependencies): void {
  const redact = createHtmlRedactor(deps.env);
  const actorOf = deps.actorOf ?? (() => ({ via: "web", name: "loopback" }));
  const startInBackground = deps.startInBackground ?? inProcessRunner(deps);
  const listSchedules = deps.listSchedules ?? (async () => []);

  // Every HTML answer is redacted on its way out.
  const redactPages = async (context: Context, next: () => Promise<void>) => {
    await next();
    if (!context.res.headers.get("content-type")?.startsWith("text/html")) return;
    const text = redact(await context.res.text());
    context.res = new Response(text, { status: context.res.status, headers: context.res.headers });
  };
  for (const path of ["/", "/fragments/*", "/loops", "/loops/*"]) app.use(path, redactPages);

  app.get("/assets/:name", (context) => serveAsset(context, context.req.param("name")));

  app.get("/", async (context) => {
    const fragment = loopsFragment(await readAll(deps.store), await listSchedules());
    return context.html(
      page(
        { title: "Loops", liveEvents: "/api/events", liveFragment: "/fragments/loops", liveGap: 1000 },
        livePart("loops", fragment),
      ),
    );
  });
  app.get("/fragments/loops", async (context) =>
    context.html(livePart("loops", loopsFragment(await readAll(deps.store), await listSchedules()))),
  );

  app.get("/loops/new", (context) =>
    context.html(newLoopPage(deps.secret, { folder: deps.specFolder ?? "" })),
  );
  app.post("/loops", async (context) => {
    const form = await context.req.parseBody({ all: true });
    const refused = guard(context, deps, form);
    if (refused) return refused;
    const upload = form.spec_file;
    const file = upload instanceof File && upload.size > 0 ? upload : undefined;
    const values = {
      spec: file ? await file.text() : text(form.spec),
      folder: text(form.folder).trim(),
      label: file ? file.name : text(form.label).trim() || "spec.yaml",
    };
    try {
      const loop = await createLoopFromText(deps.store, {
        text: values.spec,
        label: values.label,
        folder: values.folder,
      });
      startInBackground(loop, "run");
      return context.redirect(`/loops/${encodeURIComponent(loop.id)}`, 303);
    } catch (error) {
      if (error instanceof SpecError)
        return context.html(newLoopPage(deps.secret, values, error.problems), 400);
      if (error instanceof UsageError)
        return context.html(newLoopPage(deps.secret, values, [error.message]), 400);
      throw error;
    }
  });

  app.get("/loops/:id", async (context) => {
    const view = await findView(deps.store, context.req.param("id"));
    if (!view) return notFound(context);
    return context.html(
      loopPage(view, { secret: deps.secret, message: noticeOf(context.req.query("notice")) }),
    );
  });
  app.get("/loops/:id/fragments/live", async (context) => {
    const view = await findView(deps.store, context.req.param("id"));
    if (!view) return notFound(context);
    return context.html(loopFragment(view, deps.secret));
  });

  app.get("/loops/:id/iterations/:iteration", async (context) => {
    const view = await findView(deps.store, context.req.param("id"));
    const iteration = view?.state?.iterations.find(
      (item) => item.number === Number(context.req.param("iteration")),
    );
    if (!view?.state || !iteration) return notFound(context);
    return context.html(iterationPage(view, view.state, iteration));
  });
  app.get("/loops/:id/iterations/:iteration/brief", async (context) => {
    const view = await findView(deps.store, context.req.param("id"));
    const iteration = view?.state?.iterations.find(
      (item) => item.number === Number(context.req.param("iteration")),
    );
    if (!view || !iteration) return notFound(context);
    return context.html(briefPage(view, iteration));
  });
  app.get("/loops/:id/iterations/:iteration/diff", async (context) => {
    const view = await findView(deps.store, context.req.param("id"));
    const iteration = view?.state?.iterations.find(
      (item) => item.number === Number(context.req.param("iteration")),
    );
    if (!view || !iteration) return notFound(context);
    return context.html(await diffPage(view, iteration));
  });
  app.get("/loops/:id/iterations/:iteration/gates/:gate/:phase/log", async (context) => {
    const view = await findView(deps.store, context.req.param("id"));
    const number = Number(context.req.param("iteration"));
    const result =
      view?.state && Number.isInteger(number)
        ? findGateRun(view.state, number, context.req.param("gate"), context.req.param("phase"))
        : undefined;
    if (!view || !result) return notFound(context);
    const from = Math.max(1, Math.floor(Number(context.req.query("from") ?? 1)) || 1);
    return context.html(await gateLogPage(view, number, result, from));
  });
  app.get("/loops/:id/files/:sha", async (context) => {
    const view = await findView(deps.store, context.req.param("id"));
    const sha = context.req.param("sha");
    const path = safeRepositoryPath(context.req.query("path"));
    if (!view?.state || !path || !loopCommits(view.state).has(sha)) return notFound(context);
    const read = await readFileAtCommit(view.loop.repoRoot, sha, path);
    if (!read.ok) return context.html(problemPage("Not shown", read.problem), read.status);
    return context.html(filePage(view, sha, path, read.text));
  });

  for (const action of ["steer", "pause", "resume", "cancel"] as const) {
    app.post(`/loops/:id/${action}`, async (context) => {
      const form = await context.req.parseBody({ all: true });
      const refused = guard(context, deps, form);
      if (refused) return refused;
      const view = await findView(deps.store, context.req.param("id"));
      if (!view?.state) return notFound(context);
      const actionContext = {
        store: deps.store,
        home: deps.home,
        loop: view.loop,
        actor: actorOf(context),
        startInBackground,
      };
      const values = formValues(form);
      try {
        const said =
          action === "steer"
            ? await steerLoop(actionContext, steerInputFromForm(values))
            : action === "pause"
              ? await pauseLoop(actionContext)
              : action === "resume"
                ? await resumeLoop(actionContext)
                : await cancelLoop(actionContext);
        return context.redirect(
          `/loops/${encodeURIComponent(view.loop.id)}?notice=${encodeURIComponent(said)}#${action === "steer" ? "steer" : "controls"}`,
          303,
        );
      } catch (error) {
        if (!(error instanceof UsageError)) throw error;
        const status = error instanceof LoopNotFoundError ? 404 : error instanceof LoopBusyError ? 409 : 400;
        const fresh = (await findView(deps.store, view.loop.id)) ?? view;
        const message: FormMessage = {
          kind: "error",
          text: error.message,
          form: action === "steer" ? "steer" : "control",
        };
        return context.html(loopPage(fresh, { secret: deps.secret, message, steerValues: values }), status);
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
  context: Context,
  deps: DashboardDependencies,
  form: Record<string, unknown>,
): Response | Promise<Response> | undefined {
  const refusal = refuseAction(
    {
      host: context.req.header("host"),
      origin: context.req.header("origin"),
      secret: text(form[secretField]) || undefined,
    },
    { secret: deps.secret, hosts: deps.hosts },
  );
  return refusal ? context.html(problemPage("Refused", refusal), 403) : undefined;
}

/** A page that says what went wrong, in one line. */
function problemPage(title: string, problem: string) {
  return page({ title }, html`<h1>${title}</h1><p class="warning">${problem}</p>`);
}

async function readAll(store: Store): Promise<LoopView[]> {
  return Promise.all((await store.listLoops()).map((loop) => readLoopView(store, loop)));
}

async function findView(store: Store, reference: string): Promise<LoopView | undefined> {
  const loop = await store.findLoop(reference);
  return loop ? readLoopView(store, loop) : undefined;
}

function notFound(context: Context) {
  return context.html(problemPage("Not found", "No such loop, iteration, gate run or file."), 404);
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

/** Until the service runs loops: run them in this process, never waiting; a failure is logged, not thrown. */
function inProcessRunner(deps: DashboardDependencies) {
  return (loop: LoopRecord, command: "run" | "resume") => {
    runLoop({ store: deps.store, loop, home: deps.home, command }).catch((error: unknown) => {
      process.stderr.write(`loopwright: loop ${loop.name} (${loop.id}): ${(error as Error).message}\n`);
    });
  };
}
