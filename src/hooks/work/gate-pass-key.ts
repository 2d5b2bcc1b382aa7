/**
 * What a gate's pass is cached by: the exact content it graded. Pure.
 *
 * The key covers the gate's command (a changed command is a different gate), HEAD, the base the
 * changes are measured from, and the `all` stamp of every file that differs from that base in the
 * working tree (untracked, non-ignored files included). Base plus those differences is the whole tree
 * that git sees, so a cached pass is reused only for exactly what it graded; never for "nothing was
 * written through Write or Edit".
 */
import { sha256Hex } from "../review/content-stamps.ts";

export interface GradedContent {
  head: string;
  base: string;
  /** The `all` content stamp of the files that differ from `base`. */
  tree: string;
}

export function gatePassKey(command: string, content: GradedContent): string {
  return sha256Hex(`${command}\0${content.head}\0${content.base}\0${content.tree}`).slice(0, 32);
}
