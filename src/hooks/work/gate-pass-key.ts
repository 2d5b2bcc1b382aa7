/**
 * What a gate's pass is cached by: the exact content it graded. Pure.
 *
 * The key covers the gate's command (a changed command is a different gate), HEAD, the base the
 * changes are measured from, and the `all` stamp of every file that differs from that base in the
 * working tree (untracked, non-ignored files included). Base plus those differences is the whole tree
 * that git sees, so a cached pass is reused only for exactly what it graded; never for "nothing was
 * written through Write or Edit".
 */
import { createHash } from "node:crypto";

export interface GradedContent {
  head: string;
  base: string;
  /** The `all` content stamp of the files that differ from `base`. */
  tree: string;
}

export function gatePassKey(command: string, content: GradedContent): string {
  return createHash("sha256")
    .update(`${command}\0${content.head}\0${content.base}\0${content.tree}`)
    .digest("hex")
    .slice(0, 32);
}
