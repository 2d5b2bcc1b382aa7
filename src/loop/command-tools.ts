/**
 * What a gate's program needs beyond being on PATH: the module of `python3 -m <module>` must be
 * importable (else the gate fails at every run, for a reason no maker can fix), and the tool of
 * `npx <tool>` should be installed in the repository (else npx downloads it from the registry, at
 * every run, unpinned).
 */
import { dirname, join } from "node:path";
import { existsSync, readFileSync } from "../files/node-fs.ts";

/** Whether a module is importable is asked of the interpreter itself; exit 3 means "not found". */
const findSpec = [
  "import importlib.util, sys",
  "try:",
  "    found = importlib.util.find_spec(sys.argv[1]) is not None",
  "except Exception:",
  "    found = False",
  "sys.exit(0 if found else 3)",
].join("\n");

/**
 * The module `python -m <module>` runs, when the interpreter cannot find it from `directory`; undefined
 * when it can, when the words are not a `-m` run, or when the interpreter could not answer.
 */
export async function missingPythonModule(words: string[], directory: string): Promise<string | undefined> {
  if (!/^python(?:\d+(?:\.\d+)?)?$/.test(words[0] ?? "")) return undefined;
  let index = 1;
  while (words[index]?.startsWith("-") && words[index] !== "-m") index += 1;
  if (words[index] !== "-m") return undefined;
  const module = words[index + 1];
  if (!module || !/^[\w.]+$/.test(module)) return undefined;
  // node:child_process is taken when a module is asked about: importing it loads net and the streams.
  const { execFile } = process.getBuiltinModule("node:child_process");
  const exitCode = await new Promise<number | null>((resolve) => {
    execFile(words[0], ["-c", findSpec, module], { cwd: directory, timeout: 15_000 }, (error) =>
      resolve(error ? (typeof error.code === "number" ? error.code : null) : 0),
    );
  });
  return exitCode === 3 ? module : undefined;
}

/**
 * The tool `npx <tool>` runs, when neither `node_modules` at or above `directory` holds it nor the
 * repository's package.json lists it (a setup `npm ci` installs those); undefined otherwise.
 */
export function npxToolNotInstalled(words: string[], directory: string): string | undefined {
  if (words[0] !== "npx") return undefined;
  const tool = words.slice(1).find((word) => !word.startsWith("-"));
  // --package / -p name the package apart from the program: too indirect to check cheaply.
  if (!tool || words.some((word) => word === "-p" || word.startsWith("--package"))) return undefined;
  const name = tool.startsWith("@") ? tool.split("@").slice(0, 2).join("@") : tool.split("@")[0];
  const bin = name.split("/").at(-1) ?? name;
  for (let folder = directory; ; folder = dirname(folder)) {
    const modules = join(folder, "node_modules");
    if (existsSync(join(modules, ".bin", bin)) || existsSync(join(modules, name))) return undefined;
    if (dirname(folder) === folder) break;
  }
  if (listedInManifest(join(directory, "package.json"), name)) return undefined;
  return name;
}

function listedInManifest(path: string, name: string): boolean {
  try {
    const manifest = JSON.parse(readFileSync(path, "utf8")) as Record<string, Record<string, string>>;
    return ["dependencies", "devDependencies", "optionalDependencies"].some(
      (field) => manifest[field]?.[name] !== undefined,
    );
  } catch {
    return false;
  }
}
