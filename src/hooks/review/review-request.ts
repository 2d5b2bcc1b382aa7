/**
 * The review request: `.loopwright/review-request.md`, what the read-only reviewer subagent reads
 * first (it has no shell): the changed files, prose apart, the acceptance criteria of loop.yaml, and
 * the diff. It never prints the content stamps: a verdict's stamps are not for the agent to copy. Written when the work is
 * closed and whenever the Stop hook asks for a review; the reviewer is told to read the files as they
 * are on disk, since the agent may have changed them since.
 */
import { renameSync, writeFileSync } from "../../files/node-fs.ts";
import { gitResult } from "../../git/git.ts";
import type { HookLayout } from "../hook-layout.ts";
import { renderReviewRequest } from "../templates/review-request-text.ts";
import type { ChangeSnapshot } from "./changed-files.ts";

/** The diff is cut at this many bytes; the reviewer reads the files themselves. */
const diffLimitBytes = 200 * 1024;

/** Writes the request for the changes in `snapshot`; `criteria` are the spec's agent-check assertions. */
export async function writeReviewRequest(
  layout: HookLayout,
  snapshot: ChangeSnapshot,
  criteria: string[],
): Promise<void> {
  const diff = await gitResult(
    ["diff", "--no-ext-diff", "--no-color", "--no-renames", snapshot.base, "--", ...snapshot.files],
    layout.root,
  );
  const text = diff.code === 0 ? diff.stdout : `(git diff failed: ${diff.stderr.trim()})`;
  const cut = Buffer.byteLength(text) > diffLimitBytes;
  const body = renderReviewRequest({
    base: snapshot.base,
    codeFiles: snapshot.codeFiles,
    proseFiles: snapshot.proseFiles,
    criteria,
    diff: cut ? `${Buffer.from(text).subarray(0, diffLimitBytes).toString("utf8")}\n` : text,
    diffCut: cut,
  });
  const temporary = `${layout.reviewRequest}.${process.pid}.tmp`;
  writeFileSync(temporary, body);
  renameSync(temporary, layout.reviewRequest);
}
