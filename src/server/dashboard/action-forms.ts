/**
 * The owner's forms on a loop's page: pause, resume, cancel, and steering (goal, gates added, removed
 * or edited, budget). Plain HTML forms that work without JavaScript; each embeds the service's action
 * secret, which every action checks.
 */
import { html } from "hono/html";
import YAML from "yaml";
import { budgetSchema, type GateSpec, verifierGateId } from "../../core/spec.ts";
import type { LoopState } from "../../loop/state.ts";
import { secretField } from "../access-guard.ts";
import { links } from "./links.ts";
import type { DisplayStatus } from "./loop-view.ts";
import type { Markup } from "./page-layout.ts";

/** The form field that carries the per-service secret. */
export { secretField };

/** What an action left to say: a problem (shown next to the form, with what was typed) or a notice. */
export interface FormMessage {
  kind: "error" | "notice";
  text: string;
  /** The form the message is about (`steer`, `control`). */
  form: string;
}

function secretInput(secret: string): Markup {
  return html`<input type="hidden" name="${secretField}" value="${secret}">`;
}

/** Pause, resume and cancel, as the loop's status allows them. */
export function controlForms(
  loopId: string,
  status: DisplayStatus,
  secret: string,
  message?: FormMessage,
  verified = false,
): Markup {
  const button = (action: "pause" | "resume" | "cancel", label: string, enabled: boolean) =>
    html`<form method="post" action="${links.action(loopId, action)}" class="inline">${secretInput(secret)}<button type="submit" name="action" value="${action}" ${enabled ? "" : html`disabled`}>${label}</button></form>`;
  const stopped = status === "stopped";
  return html`<div class="controls" id="controls">
${button("pause", "Pause", !stopped && status !== "paused")}
${button("resume", "Resume", status !== "running" && status !== "queued" && !verified)}
${button("cancel", "Cancel", !stopped)}
${messageView(message, "control")}</div>`;
}

/** Values the steer form shows again after a refused submission. */
export type SteerFormValues = Record<string, string | string[]>;

/** The steering form: empty fields change nothing; every change applies at the next iteration boundary. */
export function steerForm(
  loopId: string,
  state: LoopState,
  secret: string,
  message?: FormMessage,
  values: SteerFormValues = {},
): Markup {
  const value = (name: string) => {
    const entry = values[name];
    return Array.isArray(entry) ? (entry[0] ?? "") : (entry ?? "");
  };
  const removable = state.spec.gates.filter((gate) => gate.id !== verifierGateId);
  const budget = state.spec.budget;
  return html`<form method="post" action="${links.action(loopId, "steer")}" class="steer" id="steer">
<h2>Steer</h2><p class="muted">Applied at the next iteration boundary; the next brief quotes the change. Empty fields change nothing.</p>
${secretInput(secret)}
${messageView(message, "steer")}
<label>Goal<textarea name="goal" rows="3" placeholder="${state.spec.goal}">${value("goal")}</textarea></label>
<fieldset><legend>Budget</legend>
${Object.keys(budgetSchema.shape).map(
  (key) =>
    html`<label>${key} <input name="budget_${key}" value="${value(`budget_${key}`)}" placeholder="${budgetPlaceholder(key, budget[key as keyof typeof budget])}" size="8"></label>`,
)}</fieldset>
<fieldset><legend>Gates</legend>
${removable.length > 0 ? html`<p>Remove: ${removable.map((gate) => html`<label class="inline"><input type="checkbox" name="remove_gate" value="${gate.id}"> ${gate.id}</label> `)}</p>` : ""}
<label>Add a gate (YAML, as <code>steer --add-gate</code> takes it)<textarea name="add_gate" rows="2" placeholder='{ id: lint, kind: lint-clean, run: "npm run lint" }'>${value("add_gate")}</textarea></label>
${
  removable.length > 0
    ? html`<label>Edit a gate <select name="edit_gate"><option value="">(none)</option>${removable.map((gate) => html`<option value="${gate.id}" ${value("edit_gate") === gate.id ? html`selected` : ""}>${gate.id}</option>`)}</select></label>
<label>Its new definition (YAML)<textarea name="edit_gate_yaml" rows="2">${value("edit_gate_yaml")}</textarea></label>
<details><summary>current gates</summary><pre>${removable.map((gate) => `${gateYaml(gate)}\n`)}</pre></details>`
    : ""
}
</fieldset>
<button type="submit">Steer</button>
</form>`;
}

function budgetPlaceholder(key: string, current: number): string {
  if (key === "wallClockPerIteration") return `${Math.round(current / 1000)}s`;
  return String(current);
}

/** A gate as one line of YAML flow (`{ id: t, kind: tests-pass, run: ... }`), durations in seconds. */
export function gateYaml(gate: GateSpec): string {
  const written: Record<string, unknown> = { id: gate.id, kind: gate.kind };
  if (gate.run) written.run = gate.run;
  if (gate.assert) written.assert = gate.assert;
  written.timeout = `${Math.round(gate.timeout / 1000)}s`;
  if (!gate.required) written.required = false;
  if (gate.baseline !== "strict") written.baseline = gate.baseline;
  if (gate.flaky !== "block") written.flaky = gate.flaky;
  return YAML.stringify(written, { collectionStyle: "flow" }).trim();
}

export function messageView(message: FormMessage | undefined, form: string): Markup {
  if (!message || message.form !== form) return html``;
  return html`<p class="${message.kind === "error" ? "form-error" : "form-notice"}" role="${message.kind === "error" ? "alert" : "status"}">${message.text}</p>`;
}
