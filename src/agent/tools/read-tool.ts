/** `read`: a text file, or a range of its lines, numbered. */
import { readFile, stat } from "node:fs/promises";
import { z } from "zod";
import { readDescription } from "../prompts/tool-descriptions.ts";
import { defineTool, failed } from "./tool-contract.ts";
import { resolveReadable } from "./workspace-paths.ts";

const inputSchema = z
  .object({
    path: z.string().describe("the file, relative to the working directory"),
    offset: z.number().int().min(1).optional().describe("first line to read, 1-based (default 1)"),
    limit: z.number().int().min(1).optional().describe("how many lines (default: to the end)"),
  })
  .strict();

export const readTool = defineTool({
  name: "read",
  description: readDescription,
  inputSchema,
  summarize: (input) => input.path,
  async run(input, context) {
    const resolved = await resolveReadable(context.workspace, input.path);
    if (!resolved.ok) return failed(resolved.error);
    const info = await stat(resolved.path);
    if (info.isDirectory()) return failed(`${input.path} is a folder; use list to see what it holds`);
    const content = await readFile(resolved.path);
    if (content.subarray(0, 8192).includes(0))
      return failed(`${input.path} is a binary file (${content.length} bytes); it cannot be shown as text`);
    const lines = content.toString("utf8").split("\n");
    if (lines.at(-1) === "") lines.pop();
    const offset = input.offset ?? 1;
    if (lines.length === 0) return { ok: true, text: `(${input.path} is empty)` };
    if (offset > lines.length)
      return failed(`${input.path} has ${lines.length} lines; offset ${offset} is past its end`);
    const last = input.limit ? Math.min(lines.length, offset + input.limit - 1) : lines.length;
    const numbered = lines
      .slice(offset - 1, last)
      .map((line, index) => `${offset + index}\t${line}`)
      .join("\n");
    const rest = last < lines.length ? `\n[lines ${offset}-${last} of ${lines.length}]` : "";
    return {
      ok: true,
      text: numbered + rest,
      readMore: (shown) =>
        `Call read with path ${JSON.stringify(input.path)} and offset ${offset + shown.last} to read on.`,
    };
  },
});
