/** The tool sets: everything for a maker; no write, edit or shell for a verifier or replanner. */
import { bashTool } from "./bash-tool.ts";
import { editTool } from "./edit-tool.ts";
import { globTool } from "./glob-tool.ts";
import { grepTool } from "./grep-tool.ts";
import { listTool } from "./list-tool.ts";
import { readTool } from "./read-tool.ts";
import { runTool } from "./run-tool.ts";
import type { AgentTool } from "./tool-contract.ts";
import { writeTool } from "./write-tool.ts";

export const fullTools: readonly AgentTool[] = [
  readTool,
  writeTool,
  editTool,
  bashTool,
  grepTool,
  globTool,
  listTool,
];

/** Reading, searching, and allowlisted commands run without a shell. */
export const readOnlyTools: readonly AgentTool[] = [readTool, grepTool, globTool, listTool, runTool];
