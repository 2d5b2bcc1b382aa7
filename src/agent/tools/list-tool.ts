/** `list`: a folder's entries, folders marked with a trailing `/`. */
import { stat } from "node:fs/promises";
import { z } from "zod";
import { listDescription } from "../prompts/tool-descriptions.ts";
import { defineTool, failed } from "./tool-contract.ts";
import { walk } from "./walk-files.ts";
import { resolveReadable } from "./workspace-paths.ts";

const inputSchema = z
  .object({
    path: z.string().optional().describe("the folder (default: the working directory)"),
    depth: z.number().int().min(1).max(4).optional().describe("levels to descend (default 1)"),
  })
  .strict();

export const listTool = defineTool({
  name: "list",
  description: listDescription,
  inputSchema,
  summarize: (input) => input.path ?? ".",
  async run(input, context) {
    const resolved = await resolveReadable(context.workspace, input.path ?? ".");
    if (!resolved.ok) return failed(resolved.error);
    if (!(await stat(resolved.path)).isDirectory())
      return failed(`${input.path} is a file; use read to see it`);
    const lines: string[] = [];
    for await (const entry of walk(resolved.path, input.depth ?? 1, context.signal)) {
      const indent = "  ".repeat(entry.depth - 1);
      const name = entry.path.split("/").at(-1);
      lines.push(`${indent}${name}${entry.kind === "folder" ? "/" : entry.kind === "link" ? " (link)" : ""}`);
    }
    if (lines.length === 0) return { ok: true, text: "(empty folder)" };
    return { ok: true, text: lines.join("\n"), readMore: () => "List a subfolder to see the rest." };
  },
});
