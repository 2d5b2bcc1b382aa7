/**
 * The layer order of `src/`, bottom first: the one place it is written down. A file may import from
 * its own layer and the layers below it, never from a layer above; `test/layering.test.ts` reads
 * every import of every `src/**` file (static, type-only and dynamic) as the compiler resolves it
 * and fails on one that points up. An area is a folder directly under `src/` (or a file there); a
 * new folder must be placed here before any import into or out of it passes the test.
 */

export interface Layer {
  name: string;
  /** Folders (or files) directly under `src/`. */
  areas: readonly string[];
  /** What belongs here. */
  holds: string;
}

export const layers: readonly Layer[] = [
  {
    name: "ground",
    areas: ["core", "files", "errors.ts", "paths.ts", "layers.ts"],
    holds:
      "the shared vocabulary every layer reads: spec types, schema and file reader, events and verdicts, " +
      "gate policy, the engine contract and token usage, pricing, tamper flag kinds, and the small " +
      "helpers they need (redaction, output tails, text capping, reading a regular file), errors, paths",
  },
  {
    name: "system",
    areas: ["git", "process", "sandbox", "store", "forge"],
    holds: "the operating system, git, the timeline store and the forges' APIs (pull requests)",
  },
  {
    name: "parts",
    areas: ["gates", "verify", "engines", "agent", "hooks", "mock-model"],
    holds: "gate runs, verification, engines, the built-in agent, hook mode, the mock model server",
  },
  { name: "loop", areas: ["loop"], holds: "the controller: decide, brief, state, runner" },
  {
    name: "application",
    areas: ["app", "service", "init", "demo"],
    holds: "what both faces call: the application functions, the service, init, the demo",
  },
  { name: "faces", areas: ["cli", "server"], holds: "the command line and the HTTP server" },
];

/** An import allowed to point up, and why. Keep this empty unless there is no better way. */
export interface LayerException {
  /** The importing file, from the repository root (`src/...`). */
  from: string;
  /** The imported file, from the repository root. */
  to: string;
  reason: string;
}

export const layerExceptions: readonly LayerException[] = [];
