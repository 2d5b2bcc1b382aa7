/**
 * A new loop from a spec pasted or uploaded. The spec is validated exactly as `run` validates a file
 * (`file:line: field: message` for each problem) before anything is created; relative paths in it
 * (`repo: ./app`, a script file) are read from the folder the form names.
 */
import { html } from "hono/html";
import { secretField } from "./action-forms.ts";
import { links } from "./links.ts";
import { type Markup, page } from "./page-layout.ts";

export interface NewLoopFormValues {
  spec?: string;
  folder?: string;
  label?: string;
}

export function newLoopPage(secret: string, values: NewLoopFormValues, problems: string[] = []): Markup {
  return page(
    { title: "New loop" },
    html`<h1>New loop</h1>
<form method="post" action="/loops" enctype="multipart/form-data" class="new-loop" id="new-loop">
<input type="hidden" name="${secretField}" value="${secret}">
${
  problems.length > 0
    ? html`<div class="form-error" role="alert"><p>The spec has ${problems.length} problem${problems.length === 1 ? "" : "s"}; nothing was created.</p>
<ul class="problems">${problems.map((problem) => html`<li><code>${problem}</code></li>`)}</ul></div>`
    : ""
}
<label>Spec (YAML)<textarea name="spec" rows="18" spellcheck="false" placeholder="name: my-loop&#10;goal: ...">${values.spec ?? ""}</textarea></label>
<label>…or upload a spec file <input type="file" name="spec_file" accept=".yaml,.yml,text/yaml"></label>
<label>File name in messages <input name="label" value="${values.label ?? "spec.yaml"}" size="24"></label>
<label>Folder its relative paths are read from <input name="folder" value="${values.folder ?? ""}" size="60" required></label>
<button type="submit">Validate and start</button>
</form>
<p class="muted">The loop is created only when the spec is valid; it then runs in the background (<a href="${links.loops()}">see the loops</a>).</p>`,
  );
}
