/** `glob`: files whose path matches a pattern. */
import { stat } from "node:fs/promises";
import { join, relative } from "node:path";
import picomatch from "picomatch";
import { z } from "zod";
import { globDescription } from "../prompts/tool-descriptions.ts";
import { defineTool, failed } from "./tool-contract.ts";
import { walk } from "./walk-files.ts";
import { resolveReadable } from "./workspace-paths.ts";

const inputSchema = z
  .object({
    pattern: z.string().min(1).describe('a glob, e.g. "src/**/*.ts"'),
    path: z
      .string()
      .optional()
      .describe("the folder the pattern is relative to (default: the working directory)"),
  })
  .strict();

export const globTool = defineTool({
  name: "glob",
  description: globDescription,
  inputSchema,
  summarize: (input) => input.pattern,
  async run(input, context) {
    const resolved = await resolveReadable(context.workspace, input.path ?? ".");
    if (!resolved.ok) return failed(resolved.error);
    if (!(await stat(resolved.path)).isDirectory()) return failed(`${input.path} is not a folder`);
    const matches = picomatch(input.pattern, { dot: true });
    const found: string[] = [];
    for await (const entry of walk(resolved.path, 64, context.signal)) {
      if (entry.kind === "folder" || !matches(entry.path)) continue;
      found.push(relative(context.workspace.root, join(resolved.path, entry.path)) || entry.path);
    }
    if (found.length === 0) return { ok: true, text: `No files match ${input.pattern}.` };
    return {
      ok: true,
      text: found.join("\n"),
      readMore: () => "Use a narrower pattern or path to see the rest.",
    };
  },
});
