/**
 * The task list of `strategy: tasks`, read from one of three formats, and the tick loopwright writes
 * when a task is verified. Pure: text in, text out.
 * - Markdown checkboxes: `- [ ] task` lines; the more indented list lines under one are its acceptance
 *   criteria (`- [ ] criterion` or `- criterion`). A heading or a line at the task's indent ends them.
 * - An OpenSpec `tasks.md` is such a list under `## 1. Group` headings, tasks numbered `1.1 ...`: the
 *   number becomes the task's id.
 * - A `prd.json` with `userStories[]` of `{ id, title, acceptanceCriteria, passes }`.
 */

export type TaskFormat = "markdown" | "prd-json";

export interface Task {
  /** The OpenSpec number (`1.2`), the story's id, or the position in the list (`3`). */
  id: string;
  title: string;
  criteria: string[];
  done: boolean;
}

export type TaskListResult = { ok: true; format: TaskFormat; tasks: Task[] } | { ok: false; problem: string };

const checkbox = /^(\s*)[-*+] \[([ xX])\] (.*\S)\s*$/;
const listItem = /^(\s*)(?:[-*+]|\d+[.)])(?: \[[ xX]\])? (.*\S)\s*$/;
const numbered = /^(\d+(?:\.\d+)*)\.?\s+(.*)$/;

/** Parses `text`, read from `path` (its extension picks the format: `.json` is a prd.json). */
export function parseTaskList(path: string, text: string): TaskListResult {
  const result = path.endsWith(".json") ? parsePrd(text) : parseMarkdown(text);
  if (!result.ok) return result;
  const seen = new Set<string>();
  for (const task of result.tasks) {
    if (seen.has(task.id)) return { ok: false, problem: `two tasks have the id ${task.id}` };
    seen.add(task.id);
  }
  return result;
}

function parseMarkdown(text: string): TaskListResult {
  const lines = text.split("\n");
  const tasks: (Task & { indent: number })[] = [];
  let taskIndent: number | undefined;
  let current: (Task & { indent: number }) | undefined;
  for (const line of lines) {
    const box = checkbox.exec(line);
    const indent = box ? box[1].length : (listItem.exec(line)?.[1].length ?? 0);
    if (box && (taskIndent === undefined || indent <= taskIndent)) {
      taskIndent ??= indent;
      const title = box[3];
      const number = numbered.exec(title);
      current = {
        id: number ? number[1] : String(tasks.length + 1),
        title,
        criteria: [],
        done: box[2] !== " ",
        indent,
      };
      tasks.push(current);
      continue;
    }
    if (line.trim() === "") continue;
    const item = listItem.exec(line);
    if (current && item && item[1].length > current.indent) current.criteria.push(item[2]);
    else current = undefined;
  }
  if (tasks.length === 0)
    return {
      ok: false,
      problem: "no tasks: expected Markdown checkboxes such as `- [ ] Add the export command`",
    };
  return { ok: true, format: "markdown", tasks: tasks.map(({ indent: _indent, ...task }) => task) };
}

function parsePrd(text: string): TaskListResult {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: `not valid JSON: ${(error as Error).message}` };
  }
  const stories = (data as { userStories?: unknown })?.userStories;
  if (!Array.isArray(stories) || stories.length === 0)
    return { ok: false, problem: "no tasks: expected a non-empty userStories array" };
  const tasks: Task[] = [];
  for (const [index, story] of stories.entries()) {
    const { id, title, acceptanceCriteria, passes } = (story ?? {}) as Record<string, unknown>;
    const where = `userStories[${index}]`;
    if (typeof id !== "string" && typeof id !== "number")
      return { ok: false, problem: `${where}.id: required` };
    if (typeof title !== "string" || title.trim() === "")
      return { ok: false, problem: `${where}.title: required` };
    if (
      acceptanceCriteria !== undefined &&
      !(Array.isArray(acceptanceCriteria) && acceptanceCriteria.every((item) => typeof item === "string"))
    )
      return { ok: false, problem: `${where}.acceptanceCriteria: expected a list of strings` };
    if (passes !== undefined && typeof passes !== "boolean")
      return { ok: false, problem: `${where}.passes: expected true or false` };
    tasks.push({
      id: String(id),
      title,
      criteria: (acceptanceCriteria as string[]) ?? [],
      done: passes === true,
    });
  }
  return { ok: true, format: "prd-json", tasks };
}

/**
 * The file with task `id` marked done (`[x]`, or `"passes": true`), everything else as it was (a
 * prd.json is rewritten with two-space indentation). `undefined` when no such open task exists.
 */
export function tickTask(path: string, text: string, id: string): string | undefined {
  if (path.endsWith(".json")) {
    const data = JSON.parse(text) as { userStories: Record<string, unknown>[] };
    const story = data.userStories.find((candidate) => String(candidate.id) === id);
    if (!story || story.passes === true) return undefined;
    story.passes = true;
    return `${JSON.stringify(data, null, 2)}\n`;
  }
  const lines = text.split("\n");
  let taskIndent: number | undefined;
  let position = 0;
  for (const [index, line] of lines.entries()) {
    const box = checkbox.exec(line);
    if (!box || (taskIndent !== undefined && box[1].length > taskIndent)) continue;
    taskIndent ??= box[1].length;
    position += 1;
    const number = numbered.exec(box[3]);
    if ((number ? number[1] : String(position)) !== id) continue;
    if (box[2] !== " ") return undefined;
    lines[index] = line.replace("[ ]", "[x]");
    return lines.join("\n");
  }
  return undefined;
}
