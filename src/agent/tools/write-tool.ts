/** `write`: creates or replaces a file inside the worktree. */
import { mkdir, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { writeDescription } from "../prompts/tool-descriptions.ts";
import { defineTool, failed } from "./tool-contract.ts";
import { resolveWritable } from "./workspace-paths.ts";

const inputSchema = z
  .object({
    path: z.string().describe("the file, relative to the working directory"),
    content: z.string().describe("the whole new content"),
  })
  .strict();

export const writeTool = defineTool({
  name: "write",
  description: writeDescription,
  inputSchema,
  summarize: (input) => input.path,
  async run(input, context) {
    const resolved = await resolveWritable(context.workspace, input.path);
    if (!resolved.ok) return failed(resolved.error);
    const existing = await stat(resolved.path).catch(() => undefined);
    if (existing?.isDirectory()) return failed(`${input.path} is a folder; name a file inside it`);
    await mkdir(dirname(resolved.path), { recursive: true });
    await writeFile(resolved.path, input.content);
    const lines = input.content === "" ? 0 : input.content.replace(/\n$/, "").split("\n").length;
    return {
      ok: true,
      text: `${existing ? "Replaced" : "Created"} ${input.path} (${lines} lines, ${Buffer.byteLength(input.content)} bytes).`,
    };
  },
});
