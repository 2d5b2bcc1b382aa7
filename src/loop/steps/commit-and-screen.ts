/**
 * Commit whatever the maker left (so nothing is lost and gates only grade a committed SHA), then screen
 * the loop's whole change from base: scope violations, protected files, the normalized diff's hash.
 */

import { createHash } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RecordedTamperFlag } from "../../core/events.ts";
import { isDeterministic } from "../../core/gate-facts.ts";
import { excerpt } from "../../core/tamper-flag.ts";
import { readTrailers, treeOf } from "../../git/commits.ts";
import { diffText, diffTexts, normalizeDiff, rememberDiff, treeDiffTexts } from "../../git/diffs.ts";
import { branchTip, commitOntoBranch, knownBranchTip } from "../../git/loop-branch.ts";
import {
  changedSince,
  checkOutTreeOfCommit,
  describeCheckoutGit,
  snapshotTree,
} from "../../git/loop-repository.ts";
import { filesAt } from "../../git/tree-with-file.ts";
import { screenScope } from "../../verify/scope.ts";
import { classifyTamperFiles } from "../../verify/tamper/classify-files.ts";
import { screenDiff } from "../../verify/tamper/screen-diff.ts";
import {
  type SpecCommand,
  type SpecCommandFiles,
  specCommandFiles,
} from "../../verify/tamper/spec-command-files.ts";
import { type DiffFile, parseUnifiedDiff } from "../../verify/tamper/unified-diff.ts";
import { turnBase } from "../review-rounds.ts";
import type { RunContext } from "../run-context.ts";
import { currentIteration } from "../state.ts";
import { evaluationFlags } from "../strategies/metric-tamper.ts";
import { expectedTaskFile, taskFileFlags } from "../strategies/task-file-flags.ts";
import { gatesIndex, handGateCheckoutAhead, loopRepositoryOf, makerIndex } from "./loop-git.ts";
import { missingBaseFailureFlags } from "./missing-base-failures.ts";
import { scrubSecretsFromChange } from "./scrub-secrets.ts";

export const loopTrailer = "Loopwright-Loop";
export const iterationTrailer = "Loopwright-Iteration";

/**
 * Commits the files the maker left in its checkout onto the loop's branch, whatever the maker did with
 * its own `.git` (its commits, a branch it switched to, a detached HEAD): the loop owns its branch, and
 * what is graded is what is on it. What the maker did with branches is recorded.
 */
export async function commitIteration(context: RunContext): Promise<void> {
  const iteration = currentIteration(context.state());
  if (!iteration) throw new Error("no iteration in progress");
  const { repoRoot } = context.loop;
  const branch = context.state().spec.branch;
  const repository = await loopRepositoryOf(context);
  // Read from the maker's `.git`, which the snapshot below (loopwright's own git) never touches: meanwhile.
  const describing = describeCheckoutGit(context.makerWorktree, branch);
  describing.catch(() => {}); // Awaited below, where a failure is the step's.
  // The commit this turn started from: the iteration's start, or the reviewed commit a turn answers.
  const base = turnBase(iteration);
  const round = iteration.reworkRound;
  // The tip this process read when the iteration started (or moved it to) is still the tip: only
  // loopwright moves the branch, and the move below names it. A resumed run reads it (a commit made
  // before a crash is adopted below).
  const readTip = async () =>
    knownBranchTip(repoRoot, branch) ?? (await branchTip(repoRoot, branch)) ?? iteration.startSha;
  let tip: string;
  let tree: string;
  if ((context.redact.secrets ?? []).length > 0) {
    // A known secret the maker wrote is flagged and scrubbed from its files before anything is
    // snapshotted: listing the pending files writes no object, so the value never reaches the object store.
    tip = await readTip();
    const pending = await changedSince(repository, context.makerWorktree, makerIndex, tip);
    await scrubSecretsFromChange(context, iteration.number, pending);
    tree = await snapshotTree(repository, context.makerWorktree, makerIndex);
  } else {
    // No secret held: nothing to search the pending files for (the scrub would do nothing), so neither
    // the listing's two git runs nor waiting for the tip before the snapshot.
    [tip, tree] = await Promise.all([readTip(), snapshotTree(repository, context.makerWorktree, makerIndex)]);
  }
  let sha = tip;
  let committed = false;
  let files: string[] | undefined;
  if (tree !== (await treeOf(repoRoot, tip))) {
    const trailers = { [loopTrailer]: context.loop.id, [iterationTrailer]: String(iteration.number) };
    const answering = round === undefined ? "" : `, answering review round ${round}`;
    // The commit and the branch's move from the tip it read, in one process; the diffs of its tree (the
    // files it changes, the screen's diff from base) in another at the same time: they need only the tree.
    const making = commitOntoBranch(repoRoot, branch, tree, tip, {
      message: `loopwright: ${context.loop.name} iteration ${iteration.number}${answering}`,
      trailers,
    });
    // The gates' checkout of the commit, from its tree, at the same time (see `handGateCheckoutAhead`).
    if (gatesComeNext(context)) {
      const made = checkOutTreeOfCommit(repository, context.gateWorktree, gatesIndex, tree, making, {
        detached: true,
      });
      handGateCheckoutAhead(
        context,
        making,
        made.then(() => true),
      );
    }
    const [made, diffs] = await Promise.all([
      making,
      diffsOfTree(repoRoot, iteration.startSha, tree, context),
    ]);
    sha = made;
    for (const [from, text] of diffs) rememberDiff(repoRoot, from, sha, text);
    files = filesOfDiff(diffs[0][1]);
    committed = true;
  } else if (tip !== base) {
    // A commit made before a crash is adopted, never made twice.
    const existing = await readTrailers(repoRoot, tip);
    committed =
      existing[loopTrailer] === context.loop.id && existing[iterationTrailer] === String(iteration.number);
  }
  files ??=
    sha === iteration.startSha ? [] : await iterationFiles(repoRoot, iteration.startSha, sha, context);
  const makerGit = await describing;
  await context.append("commit_created", {
    iteration: iteration.number,
    sha,
    committed,
    files,
    ...(makerGit ? { makerGit } : {}),
  });
}

/**
 * Whether the gates' checkout is what the steps after this commit use first: deterministic gates graded
 * right after the screen (not a turn that ends the iteration), with no setup to re-run there (which
 * compares the checkout's files before and after) and no review round or metric measure coming between.
 */
function gatesComeNext(context: RunContext): boolean {
  const state = context.state();
  const spec = state.spec;
  // A turn that ends the iteration at its commit (see decide.ts) has no gates after it.
  const status = currentIteration(state)?.maker?.status;
  if (state.cancelRequested || status === "cancelled" || status === "over_budget" || status === "crashed")
    return false;
  return (
    spec.setup.length === 0 &&
    !spec.review &&
    spec.strategy.kind !== "metric" &&
    spec.gates.some(isDeterministic)
  );
}

/**
 * The paths the iteration changed (both sides of a rename), from the diff itself. The screen's diff
 * (from the loop's base) comes in the same git run, remembered for the screen that follows.
 */
async function iterationFiles(
  repoRoot: string,
  startSha: string,
  sha: string,
  context: RunContext,
): Promise<string[]> {
  const baseSha = context.state().baseSha;
  const pairs: [string, string][] = [[startSha, sha]];
  if (baseSha && baseSha !== startSha) pairs.push([baseSha, sha]);
  const [diff] = await diffTexts(repoRoot, pairs);
  return filesOfDiff(diff);
}

/**
 * The diffs from the iteration's start commit and from the loop's base to `tree` (the commit being made
 * of it), each with the commit it is from, the start's first: what `iterationFiles` prints for the commit.
 */
async function diffsOfTree(
  repoRoot: string,
  startSha: string,
  tree: string,
  context: RunContext,
): Promise<[from: string, text: string][]> {
  const baseSha = context.state().baseSha;
  const froms = baseSha && baseSha !== startSha ? [startSha, baseSha] : [startSha];
  const pairs = await Promise.all(froms.map(async (from) => [await treeOf(repoRoot, from), tree] as const));
  const texts = await treeDiffTexts(repoRoot, pairs);
  return froms.map((from, index) => [from, texts[index]]);
}

/** Both sides of every file of a diff, sorted, each once. */
function filesOfDiff(diff: string): string[] {
  return [...new Set(parseUnifiedDiff(diff).flatMap((file) => [file.oldPath, file.path]))].sort();
}

export async function screenChange(context: RunContext): Promise<void> {
  const state = context.state();
  const iteration = currentIteration(state);
  if (!iteration?.commit || !state.baseSha) throw new Error("nothing committed to screen");
  const sha = iteration.commit.sha;
  const diff = await diffText(context.loop.repoRoot, state.baseSha, sha);
  // The files come from the diff itself (both sides of a rename): one git run less per iteration.
  const files = filesOfDiff(diff);
  const screen = screenScope(files, state.spec.scope);
  const diffPath = join(context.layout.iterationDirectory(context.loop.id, iteration.number), "diff.patch");
  await writeFile(diffPath, context.redact(diff));
  const diffHash = createHash("sha256").update(normalizeDiff(diff)).digest("hex");
  // Flags first, numbered deterministically: a re-run of this step after a crash records the same ids.
  const commands: SpecCommand[] = [
    ...state.spec.setup.map((command) => ({ command })),
    ...state.spec.gates.flatMap((gate) => (gate.run ? [{ command: gate.run, gate: gate.id }] : [])),
    // strategy metric: the evaluator is frozen; what its command runs is in the tamper set.
    ...(state.spec.strategy.kind === "metric"
      ? [{ command: state.spec.strategy.run, runner: "the metric command" }]
      : []),
  ];
  const named = await commandFilesAt(context.loop.repoRoot, state.baseSha, sha, commands);
  const missing = await missingBaseFailureFlags(state, context.loop.repoRoot, state.baseSha, sha);
  const flags = tamperFlagsOf(files, diff, state.spec.scope.protect, named);
  if (state.spec.strategy.kind === "metric") {
    const attempt = await diffText(context.loop.repoRoot, iteration.startSha, sha);
    for (const flag of evaluationFlags(attempt)) flags.push({ id: `T${flags.length + 1}`, ...flag });
  }
  if (state.tasks) {
    // Against the list as loopwright left it (its own ticks applied), not the iteration's start: a tick
    // the maker made in an earlier iteration stays flagged until it is undone.
    const [listed, actual] = await filesAt(context.loop.repoRoot, [
      `${state.tasks.sha}:${state.tasks.file}`,
      `${sha}:${state.tasks.file}`,
    ]);
    const original = listed ?? "";
    const expected = expectedTaskFile(state.tasks, original);
    for (const flag of taskFileFlags(state.tasks, expected, actual))
      flags.push({ id: `T${flags.length + 1}`, ...flag });
  }
  for (const flag of [...flags, ...missing]) {
    await context.append("tamper_flagged", { iteration: iteration.number, flag });
  }
  await context.append("change_screened", {
    iteration: iteration.number,
    sha,
    changedFiles: files,
    scopeViolations: screen.violations,
    protectedFiles: screen.protectedFiles,
    diffHash,
    diffPath,
  });
}

/**
 * The tamper set files touched, what the spec's commands name (a script a gate runs that changed is
 * `gate-script-changed`, blocking), and what the diff itself gives away, numbered T1, T2, ...
 */
export function tamperFlagsOf(
  files: string[],
  diff: string,
  protect: string[],
  commandFiles: SpecCommandFiles = { named: [], flags: [] },
): RecordedTamperFlag[] {
  const diffFiles = parseUnifiedDiff(diff);
  const touched = classifyTamperFiles(files, protect, commandFiles.named).map((entry) =>
    entry.category === "gate-script"
      ? gateScriptFlag(entry.file, entry.reason, diffFiles)
      : { kind: "tamper-file", file: entry.file, detail: `${entry.category} file changed: ${entry.reason}` },
  );
  const heuristics = screenDiff(diff, { protect, named: commandFiles.named }).map((flag) => ({
    kind: flag.kind,
    file: flag.file,
    line: flag.line,
    detail: flag.detail,
  }));
  const fromCommands = commandFiles.flags.map((flag) => ({
    kind: flag.kind,
    file: flag.file,
    line: flag.line,
    detail: flag.detail,
  }));
  return [...touched, ...fromCommands, ...heuristics].map((flag, index) => ({
    id: `T${index + 1}`,
    ...flag,
  }));
}

/** A changed gate script: at its first added line (or its first removed one), quoting it. */
function gateScriptFlag(file: string, reason: string, diffFiles: readonly DiffFile[]) {
  const changed = diffFiles.find((candidate) => candidate.path === file || candidate.oldPath === file);
  const lines = changed?.hunks.flatMap((hunk) => hunk.lines) ?? [];
  const first = lines.find((line) => line.sign === "+") ?? lines.find((line) => line.sign === "-");
  const how =
    changed?.status === "deleted"
      ? "deleted it"
      : changed?.status === "renamed" && changed.oldPath === file
        ? `moved it to ${changed.path}`
        : "rewrote it";
  const quoted = first ? `: ${first.sign === "+" ? "" : "removed "}${excerpt(first.text)}` : "";
  return {
    kind: "gate-script-changed",
    file,
    line: first ? (first.sign === "+" ? first.newLine : first.oldLine) : undefined,
    detail: `${reason}, and the change ${how}${quoted}`,
  };
}

/**
 * What the spec's commands name, reading the files they need (package.json files, shell scripts) from
 * the base and the graded commit.
 */
async function commandFilesAt(
  worktree: string,
  baseSha: string,
  sha: string,
  commands: readonly SpecCommand[],
): Promise<SpecCommandFiles> {
  const texts = new Map<string, string | undefined>();
  const wanted = new Set<string>();
  const lookup = (commit: string) => (path: string) => {
    const key = `${commit}:${path}`;
    if (!texts.has(key)) wanted.add(key);
    return texts.get(key);
  };
  // Each round reads the files the last one asked for; the scripts in them may ask for more.
  for (let round = 0; round < 6; round++) {
    wanted.clear();
    const result = specCommandFiles(commands, { base: lookup(baseSha), graded: lookup(sha) });
    if (wanted.size === 0) return result;
    // Every file this round asks for, in one git run.
    const keys = [...wanted];
    const contents = await filesAt(worktree, keys);
    for (const [index, key] of keys.entries()) texts.set(key, contents[index]);
  }
  return specCommandFiles(commands, { base: lookup(baseSha), graded: lookup(sha) });
}
