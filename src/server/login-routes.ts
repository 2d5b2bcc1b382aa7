/**
 * The door: the login form of token mode (a browser posts the token once and receives it as an HttpOnly,
 * SameSite=Strict cookie, which then authenticates its requests; actions still carry the page's
 * secret), and the middleware that holds every other request to the access guard.
 */
import type { Hono, MiddlewareHandler } from "hono";
import { setCookie } from "hono/cookie";
import { html } from "hono/html";
import { type AccessGuard, secretField, tokenCookie } from "./access-guard.ts";

export const loginPath = "/login";

export function mountLogin(app: Hono, guard: AccessGuard): void {
  const page = (problem?: string) => html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>loopwright: log in</title></head>
<body><main><h1>loopwright</h1>
${problem ? html`<p role="alert">${problem}</p>` : ""}
<form method="post" action="${loginPath}">
<label>Token <input type="password" name="token" autocomplete="current-password" required></label>
<button type="submit">Log in</button>
</form></main></body></html>`;
  app.get(loginPath, (context) => context.html(page()));
  app.post(loginPath, async (context) => {
    const origin = context.req.header("origin");
    if (origin !== undefined && origin !== new URL(context.req.url).origin)
      return context.json({ error: `cross-origin request refused (Origin ${origin})` }, 403);
    const form = await context.req.parseBody();
    const token = typeof form.token === "string" ? form.token : undefined;
    if (!guard.tokenRequired || !guard.isToken(token)) return context.html(page("Wrong token."), 401);
    setCookie(context, tokenCookie, token as string, {
      httpOnly: true,
      sameSite: "Strict",
      path: "/",
      secure: new URL(context.req.url).protocol === "https:",
    });
    return context.redirect("/", 303);
  });
}

/**
 * Middleware: every request but the login form's passes `guard.check` (a form's secret is read from its
 * field); a refused request gets its JSON error, except that a browser asking for a page without the
 * token is sent to the login form.
 */
export function guardRequests(guard: AccessGuard): MiddlewareHandler {
  return async (request, next) => {
    if (request.req.path === loginPath) return next();
    const type = request.req.header("content-type") ?? "";
    let formSecret: string | undefined;
    if (request.req.method === "POST" && /multipart\/form-data|x-www-form-urlencoded/i.test(type)) {
      const field = (await request.req.parseBody())[secretField];
      formSecret = typeof field === "string" ? field : undefined;
    }
    const refused = guard.check(request, formSecret);
    if (!refused) return next();
    const wantsPage = request.req.method === "GET" && /text\/html/.test(request.req.header("accept") ?? "");
    if (refused.status === 401 && wantsPage) return request.redirect(loginPath, 303);
    return request.json({ error: refused.error }, refused.status);
  };
}
