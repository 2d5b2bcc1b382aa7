/**
 * `run [spec]` and `resume <loop>`: a loop in the foreground, with live progress; Ctrl-C cancels it.
 * `run` starts the sandbox probe (a process) first and only then loads what the run needs (the spec
 * reader, preflight, the store, the runner: most of the start-up's modules), so the two overlap. A spec
 * unchanged since it was last read comes from the spec cache (no YAML parser, no schema library).
 */
import { SpecError } from "../../errors.ts";
import { useGitShells } from "../../git/git-shells.ts";
import { findTaggedProcesses, runIdVariable } from "../../process/sweep.ts";
import { primeSandboxAvailability } from "../../sandbox/sandbox-availability.ts";
import type { LoopRecord } from "../../store/store.ts";
import { runUnderWay } from "../run-under-way.ts";
import type { Session } from "../session.ts";

export async function runLoopCommand(
  specArgument: string,
  options: { json?: boolean; detach?: boolean },
): Promise<number> {
  if (options.detach) return (await import("./detach-command.ts")).detachLoopCommand(specArgument, options);
  // The run's git commands go through waiting shells (git-shells.ts), which the runner would start once
  // its modules have loaded: started now, while this process is small (a fork copies it), they serve
  // preflight's and the loop's creation's git too, which would each fork this process otherwise.
  useGitShells();
  // The probe never rejects: it settles with the sandbox's availability, cached for the run.
  const sandboxProbed = primeSandboxAvailability();
  const [{ describeRule }, { loadSpecFileCached }, { repositoryCommitAt }] = await Promise.all([
    import("../../core/schedule-rule.ts"),
    import("../../core/spec-cache.ts"),
    import("../../git/repository.ts"),
  ]);
  // A spec parsed from scratch gets a spec cache entry: written once the maker's turn is under way, not on
  // the way to it, or when the command ends, however it ends (a refused spec or run included). The CLI
  // bundle's code cache is made then too (runUnderWay), when the launcher wants one.
  const heldWrites: (() => void)[] = [];
  const writeHeld = () => {
    for (const write of heldWrites.splice(0)) write();
  };
  try {
    const loaded = await loadSpecFileCached(specArgument, undefined, (write) => heldWrites.push(write));
    // Preflight's first git process starts now and runs while the modules below load (an import loads
    // its module graph before it returns).
    const usualCase = repositoryCommitAt(loaded.repoPath, loaded.spec.base).catch(() => undefined);
    const [{ createLoop }, { preflight }, { openSession }, { preloadTurn }] = await Promise.all([
      import("../../loop/create-loop.ts"),
      import("../../loop/preflight.ts"),
      import("../session.ts"),
      import("../../engines/registry.ts"),
    ]);
    if (loaded.spec.schedule) {
      process.stderr.write(
        `note: ${specArgument} has a schedule (${describeRule(loaded.spec.schedule)}); run starts it once, now. ` +
          "To fire it on schedule, register it with loopwright run --detach and keep loopwright serve running.\n",
      );
    }
    const check = await preflight(loaded, specArgument, usualCase);
    if (check.problems.length > 0 || !check.repoRoot || !check.baseSha) throw new SpecError(check.problems);
    const session = await openSession();
    try {
      // Creating the loop waits on git processes: the foreground run's modules (the runner, the maker's
      // turn code) load meanwhile, once its first git has started (an import loads its module graph
      // before it returns).
      let refused = false;
      const creating = createLoop(session.store, loaded, check.repoRoot, check.baseSha).catch((error) => {
        refused = true;
        throw error;
      });
      setImmediate(() => {
        if (refused) return;
        loadForegroundModules().catch(() => {});
        void preloadTurn(loaded.spec.maker);
      });
      const loop = await creating;
      await sandboxProbed;
      const makerUnderWay = () => {
        writeHeld();
        runUnderWay();
      };
      return await runInForeground(session, loop, "run", options.json ?? false, makerUnderWay);
    } finally {
      await session.store.close();
    }
  } finally {
    writeHeld();
  }
}

export async function resumeLoopCommand(reference: string, options: { json?: boolean }): Promise<number> {
  const [{ readLoop }, { recordForegroundResume }, { describeVerified }, { describeUnappliedSteering }] =
    await Promise.all([
      import("../../app/app-context.ts"),
      import("../../app/resume-loop.ts"),
      import("../../loop/tamper-standing.ts"),
      import("../../loop/unapplied-steering.ts"),
    ]);
  const { appContext, openSession } = await import("../session.ts");
  const { cliActor } = await import("../cli-actor.ts");
  const session = await openSession();
  try {
    const context = await appContext(session);
    const loop = await recordForegroundResume(context, reference, cliActor());
    const code = await runInForeground(session, loop, "resume", options.json ?? false);
    const { state } = await readLoop(context, loop.id);
    if (state.stopReason === "verified" && code === 0 && !options.json) {
      // A verified loop does not go on: say so, and what became of steering filed too late.
      const unapplied = describeUnappliedSteering(state);
      process.stdout.write(
        `loop ${loop.name} is ${describeVerified(state)}: nothing to resume${unapplied ? `\nnote: ${unapplied}` : ""}\n`,
      );
    }
    return code;
  } finally {
    await session.store.close();
  }
}

/**
 * Runs the loop until it stops or pauses; the first Ctrl-C (or SIGTERM) cancels cleanly, a second one
 * leaves at once. A hang-up (the terminal closed) cancels cleanly too and exits 129. Leaving at once
 * stops every process of the loop as well: each turn runs in a sandbox that dies with this process.
 * `afterMakerStarted` is called `makerUnderWayMs` after a `maker_started` (the maker's command runs by
 * then: it starts ~30 ms after the event on a 2-core machine), and before the second signal's exit.
 */
export async function runInForeground(
  session: Session,
  loop: LoopRecord,
  command: "run" | "resume",
  json: boolean,
  afterMakerStarted?: () => void,
): Promise<number> {
  const [{ runLoop }, { exitCodeOf }, { cliActor }, { jsonPrinter, progressPrinter }] =
    await loadForegroundModules();
  const interrupt = new AbortController();
  let hungUp = false;
  let runId: string | undefined;
  let makerStartedTimer: NodeJS.Timeout | undefined;
  const onSignal = () => {
    if (interrupt.signal.aborted) {
      // Without the sandbox the turn's processes would outlive us: kill what carries this run's tag.
      if (runId) killTaggedNow(runId);
      afterMakerStarted?.();
      process.exit(hungUp ? 129 : 130);
    }
    interrupt.abort();
  };
  const onHangUp = () => {
    hungUp = true;
    onSignal();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  process.on("SIGHUP", onHangUp);
  const printer = json ? jsonPrinter() : progressPrinter();
  try {
    const state = await runLoop({
      store: session.store,
      loop,
      home: session.home,
      command,
      actor: cliActor(),
      onEvent: (event, state) => {
        if (event.type === "run_started") runId = event.data.runId;
        printer(event, state);
        if (event.type === "maker_started" && afterMakerStarted) {
          clearTimeout(makerStartedTimer);
          makerStartedTimer = setTimeout(afterMakerStarted, makerUnderWayMs);
          makerStartedTimer.unref();
        }
      },
      interrupt: interrupt.signal,
    });
    return hungUp ? 129 : exitCodeOf(state);
  } finally {
    clearTimeout(makerStartedTimer);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    process.off("SIGHUP", onHangUp);
  }
}

/** How long after `maker_started` the maker's turn counts as under way (see `runInForeground`). */
const makerUnderWayMs = 250;

let foregroundModules: ReturnType<typeof importForegroundModules> | undefined;

/** What a foreground run needs, imported once (an import loads its module graph before it returns). */
function loadForegroundModules(): ReturnType<typeof importForegroundModules> {
  foregroundModules ??= importForegroundModules();
  return foregroundModules;
}

function importForegroundModules() {
  return Promise.all([
    import("../../loop/runner.ts"),
    import("../../loop/exit-code.ts"),
    import("../cli-actor.ts"),
    import("../progress-printer.ts"),
  ]);
}

/** SIGKILL, synchronously, to every process tagged with `runId` (Linux /proc; elsewhere none are found). */
function killTaggedNow(runId: string): void {
  for (const pid of findTaggedProcesses(runIdVariable, (value) => value === runId)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
}
