/** `edit`: replaces an exact, unique piece of a file; says clearly why when it cannot. */
import { readFile, writeFile } from "node:fs/promises";
import { z } from "zod";
import { editDescription } from "../prompts/tool-descriptions.ts";
import { defineTool, failed } from "./tool-contract.ts";
import { resolveWritable } from "./workspace-paths.ts";

const inputSchema = z
  .object({
    path: z.string().describe("the file, relative to the working directory"),
    old_string: z.string().min(1).describe("the exact text to replace"),
    new_string: z.string().describe("the text to put in its place"),
    replace_all: z.boolean().optional().describe("replace every occurrence (default false)"),
  })
  .strict();

export const editTool = defineTool({
  name: "edit",
  description: editDescription,
  inputSchema,
  summarize: (input) => input.path,
  async run(input, context) {
    const resolved = await resolveWritable(context.workspace, input.path);
    if (!resolved.ok) return failed(resolved.error);
    if (input.old_string === input.new_string)
      return failed("old_string and new_string are the same; nothing would change");
    const content = await readFile(resolved.path, "utf8");
    const lines = occurrenceLines(content, input.old_string);
    if (lines.length === 0) return failed(notFound(input.path, content, input.old_string));
    if (lines.length > 1 && !input.replace_all)
      return failed(
        `old_string occurs ${lines.length} times in ${input.path} (lines ${lines.join(", ")}); include more ` +
          "surrounding lines to make it unique, or set replace_all to true to replace them all",
      );
    const updated = input.replace_all
      ? content.split(input.old_string).join(input.new_string)
      : content.replace(input.old_string, () => input.new_string);
    await writeFile(resolved.path, updated);
    return {
      ok: true,
      text: `Replaced ${lines.length} occurrence${lines.length > 1 ? "s" : ""} in ${input.path} (line ${lines.join(", ")}).`,
    };
  },
});

/** 1-based line numbers where `needle` starts in `content`. */
function occurrenceLines(content: string, needle: string): number[] {
  const lines: number[] = [];
  for (
    let index = content.indexOf(needle);
    index !== -1;
    index = content.indexOf(needle, index + needle.length)
  )
    lines.push(content.slice(0, index).split("\n").length);
  return lines;
}

/** Why the text was not found, with the likely line when only whitespace differs. */
function notFound(path: string, content: string, needle: string): string {
  const squeeze = (text: string) => text.replace(/\s+/g, "");
  const first = squeeze(needle.split("\n").find((line) => line.trim() !== "") ?? "");
  const near = first ? content.split("\n").findIndex((line) => squeeze(line).includes(first)) : -1;
  const hint =
    near === -1 ? "" : ` Similar text is at line ${near + 1}; whitespace or indentation may differ.`;
  return `old_string was not found in ${path}. It must match the file exactly, including whitespace and indentation; read the file and copy the text.${hint}`;
}
