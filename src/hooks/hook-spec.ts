/**
 * The gates of the checkout's loop.yaml as hook mode needs them. The spec is validated by the loop's
 * own loader, except that it needs no `maker` (hook mode never runs one; it ignores `maker`, `repo`,
 * `setup`, `budget`, `scope` and `finish`). The result is
 * cached in `.loopwright/spec-cache.json` by the spec's content, so the hooks' hot path loads neither
 * the YAML parser nor the schema library (nor node:crypto: the cache keeps the text it was made from
 * and compares it whole, which no hash collision can fool).
 */
import { readFileSync, renameSync, writeFileSync } from "../files/node-fs.ts";
import { ensureStateFolder, type HookLayout } from "./hook-layout.ts";

export type GateTiming = "every-stop" | "on-close";

export interface HookGate {
  id: string;
  kind: string;
  /** The pinned command (deterministic kinds). */
  run?: string;
  /** The assertion (agent-check): handed to the reviewer as an acceptance criterion. */
  assert?: string;
  timeoutMs: number;
  parallel: boolean;
  required: boolean;
  timing: GateTiming;
}

export interface HookSpec {
  gates: HookGate[];
}

interface SpecCache {
  /** loopwright's version, a NUL, and the spec's text. */
  key: string;
  spec: HookSpec;
}

/**
 * The hook view of loop.yaml at the checkout root. Throws `SpecError` (one problem per line) for an
 * invalid spec, and the file system's error when it cannot be read.
 */
export async function loadHookSpec(layout: HookLayout): Promise<HookSpec> {
  const text = readFileSync(layout.spec, "utf8");
  const key = `${loopwrightVersion()}\0${text}`;
  const cached = readCache(layout.specCache);
  if (cached?.key === key) return cached.spec;
  const hookSpec = await parseHookSpec(text, layout.root);
  await writeCache(layout, { key, spec: hookSpec });
  return hookSpec;
}

/** Validates spec text with the loop's loader and keeps what hook mode needs; no cache, no write. */
export async function parseHookSpec(text: string, root: string): Promise<HookSpec> {
  const { parseSpecTextForAnyMode } = await import("../core/spec-file.ts");
  const { spec } = parseSpecTextForAnyMode(text, "loop.yaml", root);
  return {
    gates: spec.gates.map((gate) => ({
      id: gate.id,
      kind: gate.kind,
      ...(gate.run ? { run: gate.run } : {}),
      ...(gate.assert ? { assert: gate.assert } : {}),
      timeoutMs: gate.timeout,
      parallel: gate.parallel,
      required: gate.required,
      timing: gate.hook ?? "every-stop",
    })),
  };
}

/** The deterministic gates (those with a command) to run at a stop; `closing` adds the on-close ones. */
export function gatesToRun(spec: HookSpec, closing: boolean): HookGate[] {
  return spec.gates.filter((gate) => gate.run !== undefined && (closing || gate.timing === "every-stop"));
}

/** The agent-check assertions: acceptance criteria for the reviewer. */
export function acceptanceCriteria(spec: HookSpec): string[] {
  return spec.gates.flatMap((gate) => (gate.assert ? [`${gate.id}: ${gate.assert}`] : []));
}

function readCache(path: string): SpecCache | undefined {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as SpecCache;
  } catch {
    return undefined;
  }
}

async function writeCache(layout: HookLayout, cache: SpecCache): Promise<void> {
  try {
    await ensureStateFolder(layout);
    const temporary = `${layout.specCache}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(cache));
    renameSync(temporary, layout.specCache);
  } catch {
    // Without a cache the next hook parses the spec again; nothing is lost.
  }
}

let version: string | undefined;
function loopwrightVersion(): string {
  version ??= (
    JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version: string;
    }
  ).version;
  return version;
}
