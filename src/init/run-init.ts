import { stat, writeFile } from "node:fs/promises";
import { basename, dirname, relative, resolve } from "node:path";
import { UsageError } from "../errors.ts";
import { detectProject } from "./detect-project.ts";
import type { Detection } from "./detection.ts";
import { readProjectFiles } from "./project-files.ts";
import { renderSpec } from "./render-spec.ts";
import { specNameFromFolder } from "./spec-name.ts";

/** The spec file `loopwright init` writes when no output path is given. */
export const defaultSpecFileName = "loop.yaml";

export interface InitOptions {
  /** The project folder to inspect; relative paths resolve against the current directory. */
  directory: string;
  /** Overwrite an existing spec file instead of refusing. */
  force: boolean;
  /**
   * Where to write the spec; default `<directory>/loop.yaml`. Relative paths resolve against the
   * current directory; the folder must exist.
   */
  output?: string;
}

export interface InitResult {
  /** Absolute path of the spec file written. */
  path: string;
  /** What was found in the folder (ecosystems, setup commands, gates). */
  detected: Detection;
}

/**
 * `loopwright init`: detects the test, build and lint commands of the project in `directory` and
 * writes a commented loop.yaml for the user to edit. The spec's name comes from the folder's name;
 * its `repo` points back at `directory` when the file is written elsewhere. Throws UsageError when
 * `directory` is not a folder, or when the spec file exists and `force` is false (the existing file
 * is left untouched).
 */
export async function runInit(options: InitOptions): Promise<InitResult> {
  const directory = resolve(options.directory);
  if (!(await isDirectory(directory))) throw new UsageError(`not a folder: ${directory}`);
  const path = resolve(options.output ?? resolve(directory, defaultSpecFileName));

  const detected = detectProject(await readProjectFiles(directory));
  const text = renderSpec({
    name: specNameFromFolder(basename(directory)),
    repo: relative(dirname(path), directory) || ".",
    detection: detected,
  });

  try {
    // "wx" makes refusing race-free: the check and the write are one system call.
    await writeFile(path, text, { encoding: "utf8", flag: options.force ? "w" : "wx" });
  } catch (error) {
    if (isErrorCode(error, "EEXIST")) {
      throw new UsageError(`${path} already exists; use --force to overwrite it`);
    }
    if (isErrorCode(error, "ENOENT")) throw new UsageError(`cannot write ${path}: its folder does not exist`);
    throw error;
  }
  return { path, detected };
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

function isErrorCode(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}
