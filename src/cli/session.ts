/** What most commands open first: the state home, the store, and the application layer's context. */
import type { AppContext } from "../app/app-context.ts";
import { UsageError } from "../errors.ts";
import { plainRepositoryAt } from "../git/plain-repository.ts";
import { loopwrightHome } from "../paths.ts";
import { openStore } from "../store/open-store.ts";
import type { Store } from "../store/store.ts";

export interface Session {
  home: string;
  store: Store;
}

export async function openSession(): Promise<Session> {
  const home = loopwrightHome();
  return { home, store: await openStore(home) };
}

/** The application layer's context of a command: loop names resolve in the current repository first. */
export async function appContext(session: Session): Promise<AppContext> {
  return { store: session.store, home: session.home, repoRoot: await currentRepository() };
}

/**
 * The repository the current directory belongs to, if any. The usual case is read from the file system
 * (`resolveRepository` starts there too); only anything else loads git's modules (git/repository.ts and
 * the three it imports, which `ls` and `show` never use in the usual case).
 */
export async function currentRepository(): Promise<string | undefined> {
  const directory = process.cwd();
  const plain = plainRepositoryAt(directory);
  if (plain) return plain.root;
  try {
    const { resolveRepository } = await import("../git/repository.ts");
    return (await resolveRepository(directory)).root;
  } catch (error) {
    if (error instanceof UsageError) return undefined;
    throw error;
  }
}

/** Parses an iteration number option: 1 or more, or 0 (the gates' run on the base commit) where `lowest` is 0. */
export function parseIterationOption(value: string | undefined, lowest: 0 | 1 = 1): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || !Number.isInteger(number) || number < lowest)
    throw new UsageError(`--iteration: not an iteration number: ${value}`);
  return number;
}
