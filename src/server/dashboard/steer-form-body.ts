/**
 * The steer form's fields as the request body the app's `steerLoop` takes (the same body the API takes
 * and the CLI's options build): goal, gates added, removed or edited (an edit is a removal and an
 * addition under the same id), budget values typed as text. Gate YAML that does not parse is refused with
 * the CLI's message.
 */
import YAML from "yaml";
import type { SteerRequestBody } from "../../app/schemas/action-schemas.ts";
import { UsageError } from "../../errors.ts";
import type { SteerFormValues } from "./action-forms.ts";

/** The steer form's fields as the CLI's `steer` options would give them. */
export function steerBodyFromForm(values: SteerFormValues): SteerRequestBody {
  const text = (name: string) => {
    const value = values[name];
    return (Array.isArray(value) ? value[0] : value)?.trim() ?? "";
  };
  const list = (name: string) => {
    const value = values[name];
    return (Array.isArray(value) ? value : value ? [value] : []).filter((entry) => entry.trim() !== "");
  };
  const input: SteerRequestBody = {};
  if (text("goal")) input.goal = text("goal");
  const addGates: unknown[] = [];
  const removeGates = list("remove_gate");
  if (text("add_gate")) addGates.push(parseGate(text("add_gate"), "--add-gate"));
  if (text("edit_gate")) {
    if (!text("edit_gate_yaml"))
      throw new UsageError(`edit gate ${text("edit_gate")}: give its new definition`);
    const edited = parseGate(text("edit_gate_yaml"), "--add-gate");
    // An edit is a removal and an addition under the same id, as `steer --remove-gate x --add-gate ...`.
    if (!removeGates.includes(text("edit_gate"))) removeGates.push(text("edit_gate"));
    addGates.push(edited);
  }
  if (addGates.length > 0) input.addGates = addGates;
  if (removeGates.length > 0) input.removeGates = removeGates;
  const budget: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(values)) {
    if (!name.startsWith("budget_")) continue;
    const entry = (Array.isArray(value) ? value[0] : value)?.trim();
    if (!entry) continue;
    budget[name.slice("budget_".length)] = /^\d+(\.\d+)?$/.test(entry) ? Number(entry) : entry;
  }
  if (Object.keys(budget).length > 0) input.budget = budget;
  return input;
}

function parseGate(text: string, option: string): unknown {
  try {
    return YAML.parse(text);
  } catch (error) {
    throw new UsageError(`${option}: not YAML: ${(error as Error).message.split("\n")[0]}`);
  }
}
