/**
 * The Node.js and loopwright entry the hook launcher pins, and the one check `init claude` makes: it
 * runs the launcher it wrote and reads the Node.js version that answers.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { UsageError } from "../../errors.ts";
import { realpathSync } from "../../files/node-fs.ts";

const execFileAsync = promisify(execFile);

export interface PinnedNode {
  /** Absolute path of the Node.js running `init claude` (bin/loopwright.js refuses anything below 24). */
  node: string;
  version: string;
  /** Absolute, symlinks resolved, path of bin/loopwright.js. */
  entry: string;
}

export function pinnedNode(): PinnedNode {
  const entry = fileURLToPath(new URL("../../../bin/loopwright.js", import.meta.url));
  return { node: realpathSync(process.execPath), version: process.version, entry: realpathSync(entry) };
}

/**
 * Runs `<launcher> check` with `PATH` reduced to the system folders (whatever `node` they hold, if any)
 * and returns the Node.js version that answered. Throws `UsageError` when the launcher does not answer
 * or answers with a Node.js older than 24.
 */
export async function checkLauncher(launcher: string): Promise<string> {
  let stdout: string;
  try {
    ({ stdout } = await execFileAsync("/bin/sh", [launcher, "check"], {
      env: { ...process.env, PATH: "/usr/bin:/bin" },
      timeout: 30_000,
    }));
  } catch (error) {
    throw new UsageError(
      `the hook launcher ${launcher} does not run: ${(error as Error).message.split("\n")[0]}`,
    );
  }
  const message = parseMessage(stdout);
  const version = /Node\.js (v(\d+)\.\S+)/.exec(message ?? "");
  if (!version) throw new UsageError(`the hook launcher ${launcher} answered: ${stdout.trim() || "nothing"}`);
  if (Number(version[2]) < 24)
    throw new UsageError(
      `the hook launcher ${launcher} runs Node.js ${version[1]}; hook mode needs 24 or newer`,
    );
  return version[1];
}

function parseMessage(stdout: string): string | undefined {
  try {
    return (JSON.parse(stdout) as { systemMessage?: string }).systemMessage;
  } catch {
    return undefined;
  }
}
