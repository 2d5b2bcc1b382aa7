/** What most commands open first: the state home, the store, and the loop a reference names. */
import { LoopNotFoundError, UsageError } from "../errors.ts";
import { resolveRepository } from "../git/repository.ts";
import { loopwrightHome } from "../paths.ts";
import { openStore } from "../store/open-store.ts";
import type { LoopRecord, Store } from "../store/store.ts";

export interface Session {
  home: string;
  store: Store;
}

export async function openSession(): Promise<Session> {
  const home = loopwrightHome();
  return { home, store: await openStore(home) };
}

/** The repository the current directory belongs to, if any. */
export async function currentRepository(): Promise<string | undefined> {
  try {
    return (await resolveRepository(process.cwd())).root;
  } catch (error) {
    if (error instanceof UsageError) return undefined;
    throw error;
  }
}

/** Finds a loop by id, or by name in the current repository; a clear error when there is none. */
export async function findLoopOrThrow(store: Store, reference: string): Promise<LoopRecord> {
  const repoRoot = await currentRepository();
  const loop = (await store.findLoop(reference, repoRoot)) ?? (await store.findLoop(reference));
  if (!loop) {
    const where = repoRoot ? ` in ${repoRoot}` : "";
    throw new LoopNotFoundError(`no loop named or with id '${reference}'${where} (see loopwright ls --all)`);
  }
  return loop;
}

/** Parses an iteration number option: 1 or more, or 0 (the gates' run on the base commit) where `lowest` is 0. */
export function parseIterationOption(value: string | undefined, lowest: 0 | 1 = 1): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || !Number.isInteger(number) || number < lowest)
    throw new UsageError(`--iteration: not an iteration number: ${value}`);
  return number;
}
