/** `grep`: a regular expression over the files of a folder, `path:line: text` per match. */
import { readFile, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import picomatch from "picomatch";
import { z } from "zod";
import { grepDescription } from "../prompts/tool-descriptions.ts";
import { defineTool, failed } from "./tool-contract.ts";
import { walk } from "./walk-files.ts";
import { resolveReadable } from "./workspace-paths.ts";

const inputSchema = z
  .object({
    pattern: z.string().min(1).describe("a JavaScript regular expression"),
    path: z.string().optional().describe("folder or file to search (default: the working directory)"),
    glob: z.string().optional().describe('only files whose name or path matches, e.g. "*.ts"'),
    ignore_case: z.boolean().optional(),
  })
  .strict();

/** Files larger than this are skipped (generated bundles, data). */
const largestFile = 2 * 1024 * 1024;
const maxMatches = 1000;

export const grepTool = defineTool({
  name: "grep",
  description: grepDescription,
  inputSchema,
  summarize: (input) => `${input.pattern}${input.path ? ` in ${input.path}` : ""}`,
  async run(input, context) {
    let pattern: RegExp;
    try {
      pattern = new RegExp(input.pattern, input.ignore_case ? "i" : "");
    } catch (error) {
      return failed(`pattern is not a valid regular expression: ${(error as Error).message}`);
    }
    const resolved = await resolveReadable(context.workspace, input.path ?? ".");
    if (!resolved.ok) return failed(resolved.error);
    const matchesName = input.glob
      ? picomatch(input.glob, { dot: true, matchBase: !input.glob.includes("/") })
      : () => true;
    const info = await stat(resolved.path);
    const files = info.isDirectory()
      ? await filesUnder(resolved.path, context.signal)
      : [{ absolute: resolved.path }];
    const found: string[] = [];
    for (const file of files) {
      const shown = relative(context.workspace.root, file.absolute) || file.absolute;
      if (!matchesName(shown) || found.length >= maxMatches) continue;
      const text = await readText(file.absolute);
      if (text === undefined) continue;
      text.split("\n").forEach((line, index) => {
        if (found.length < maxMatches && pattern.test(line)) found.push(`${shown}:${index + 1}: ${line}`);
      });
    }
    if (found.length === 0) return { ok: true, text: "No matches." };
    const capped = found.length >= maxMatches ? `\n[stopped at ${maxMatches} matches]` : "";
    return {
      ok: true,
      text: found.join("\n") + capped,
      readMore: () => "Narrow the pattern, path or glob to see the rest.",
    };
  },
});

async function filesUnder(folder: string, signal: AbortSignal): Promise<{ absolute: string }[]> {
  const files: { absolute: string }[] = [];
  for await (const entry of walk(folder, 64, signal))
    if (entry.kind === "file") files.push({ absolute: join(folder, entry.path) });
  return files;
}

/** The file's text, or undefined when it is too large, binary or unreadable. */
async function readText(path: string): Promise<string | undefined> {
  try {
    if ((await stat(path)).size > largestFile) return undefined;
    const content = await readFile(path);
    return content.subarray(0, 8192).includes(0) ? undefined : content.toString("utf8");
  } catch {
    return undefined;
  }
}
