/**
 * A Makefile target's recipe, read the way `make` reads it closely enough for the tamper screen: the
 * rule line (`test lint: build`), its prerequisites, and its commands (tab-indented lines, blank and
 * comment lines skipped, `\` continuations joined, the `@`, `-` and `+` prefixes dropped). Pure.
 */

/** A target's rule: the line it starts on (1-based), its prerequisites and its recipe's commands. */
export interface MakeRecipe {
  line: number;
  prerequisites: string[];
  commands: string[];
}

const rule = /^([^\s:#=][^:#=]*?)\s*::?(?!=)(.*)$/;

/**
 * The rule of `target` in `text`; `""` asks for the default goal (the first target that does not start
 * with `.` and is not a pattern). Undefined when there is no such rule.
 */
export function makeRecipe(text: string, target: string): MakeRecipe | undefined {
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const match = rule.exec(lines[index]);
    if (!match || lines[index].startsWith("\t")) continue;
    const targets = match[1].split(/\s+/);
    const wanted =
      target === ""
        ? targets.some((name) => !name.startsWith(".") && !name.includes("%"))
        : targets.includes(target);
    if (!wanted) continue;
    const [prerequisiteText, inline] = splitOnce(match[2], ";");
    const commands: string[] = inline === undefined ? [] : [inline.trim()];
    let pending = "";
    for (let next = index + 1; next < lines.length; next++) {
      const line = lines[next];
      if (pending === "" && !line.startsWith("\t")) {
        if (line.trim() === "" || line.trim().startsWith("#")) continue;
        break;
      }
      const body = pending === "" ? line.slice(1) : line.trim();
      if (body.endsWith("\\")) {
        pending += `${body.slice(0, -1).trim()} `;
        continue;
      }
      const command = (pending + body.trim()).replace(/^[@+-]+\s*/, "").trim();
      pending = "";
      if (command !== "" && !command.startsWith("#")) commands.push(command);
    }
    return { line: index + 1, prerequisites: prerequisiteText.split(/\s+/).filter(Boolean), commands };
  }
  return undefined;
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}
