import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { SpecError } from "../errors.ts";
import { parseScript, type Script } from "./script.ts";

/**
 * Reads and validates a script file, YAML or JSON (JSON is YAML). Throws `SpecError` listing every
 * problem, one line each, `<path as given>: <field path>: <message>`; an unreadable file or invalid
 * YAML is one problem.
 */
export async function loadScriptFile(path: string): Promise<Script> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a folder" : `cannot read (${code})`;
    throw new SpecError([`${path}: ${reason}`]);
  }
  let data: unknown;
  try {
    data = parse(text);
  } catch (error) {
    throw new SpecError([`${path}: invalid YAML: ${(error as Error).message.split("\n")[0]}`]);
  }
  const parsed = parseScript(data ?? {}, path);
  if (!parsed.ok) throw new SpecError(parsed.problems);
  return parsed.script;
}
