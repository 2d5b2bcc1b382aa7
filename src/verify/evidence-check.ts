/**
 * The mechanical half of judging a verdict: every piece of evidence must point at something real and
 * particular. A cited file must be a file (not the repository, a folder, or a link out of it) inside
 * the repository at the graded commit, with the line in range; a quoted output must say something
 * (a few letters or digits, not whitespace) and appear in what that gate printed on this commit
 * (colours stripped, whitespace runs collapsed; the lines loopwright writes around a log do not count).
 */
import { posix } from "node:path";
import { stripVTControlCharacters } from "node:util";
import type { Verdict } from "../core/events.ts";

/** What a repository path is at the graded commit, symbolic links inside the repository followed. */
export type CitedEntry =
  | { kind: "file"; lines: number }
  | { kind: "directory" }
  /** Anything else a person would not call a file: `what` completes "which is …" (e.g. "a submodule"). */
  | { kind: "other"; what: string };

export interface EvidenceSources {
  /** What `path` (repository-relative, normalized) is at the graded commit, or undefined when absent. */
  entry(path: string): Promise<CitedEntry | undefined>;
  /** What the gate printed in its runs on the graded commit (without loopwright's lines), or undefined when it never ran. */
  gateOutput(gateId: string): Promise<string | undefined>;
}

/** A quote shorter than this (normalized), or with fewer letters and digits than `minimumQuoteSignal`, proves nothing. */
export const minimumQuoteLength = 5;
const minimumQuoteSignal = 3;

/** Whether `text` says enough to be evidence: a few letters or digits, not whitespace or punctuation. */
export function isQuotable(text: string): boolean {
  const quote = normalize(text);
  return (
    quote.length >= minimumQuoteLength && (quote.match(/[\p{L}\p{N}]/gu)?.length ?? 0) >= minimumQuoteSignal
  );
}

/** One line per piece of evidence that points at nothing. */
export async function checkEvidence(verdict: Verdict, sources: EvidenceSources): Promise<string[]> {
  const problems: string[] = [];
  for (const ruling of verdict.gates) {
    for (const evidence of ruling.evidence) {
      if ("file" in evidence) {
        const problem = await checkFile(evidence.file, evidence.line, sources);
        if (problem) problems.push(`gates.${ruling.id}: ${problem}`);
        continue;
      }
      const quote = normalize(evidence.quote);
      if (!isQuotable(quote)) {
        problems.push(
          `gates.${ruling.id}: quotes too little of gate '${evidence.gate}' output to prove anything (${JSON.stringify(evidence.quote)}); quote a whole line it printed`,
        );
        continue;
      }
      const output = await sources.gateOutput(evidence.gate);
      if (output === undefined) {
        problems.push(
          `gates.${ruling.id}: quotes gate '${evidence.gate}', which has no output on this commit`,
        );
      } else if (!normalize(output).includes(quote)) {
        const shown = evidence.quote.length > 80 ? `${evidence.quote.slice(0, 80)}...` : evidence.quote;
        problems.push(
          `gates.${ruling.id}: the quote ${JSON.stringify(shown)} never appeared in gate '${evidence.gate}' output`,
        );
      }
    }
  }
  return problems;
}

/** The problem with citing `file` (and `line`), if any. */
async function checkFile(
  file: string,
  line: number | undefined,
  sources: EvidenceSources,
): Promise<string | undefined> {
  const cited = file === "" ? '""' : file;
  const path = repositoryPath(file);
  if (path === undefined) return `cites ${cited}, which is outside the repository`;
  if (path === "") return `cites ${cited}, which is the repository itself, not a file`;
  const entry = await sources.entry(path);
  if (entry === undefined) return `cites ${cited}, which does not exist in the commit`;
  if (entry.kind === "directory") return `cites ${cited}, which is a folder, not a file`;
  if (entry.kind === "other") return `cites ${cited}, which is ${entry.what}, not a file`;
  if (line === undefined) return undefined;
  if (line < 1) return `cites ${cited}:${line}, but lines start at 1`;
  if (line > entry.lines) return `cites ${cited}:${line}, but the file has ${entry.lines} lines`;
  return undefined;
}

/** `file` normalized and repository-relative ("" for the root), or undefined when it is absolute or outside. */
function repositoryPath(file: string): string | undefined {
  const slashed = file.replaceAll("\\", "/");
  if (slashed.startsWith("/") || /^[A-Za-z]:\//.test(slashed) || slashed.startsWith("~")) return undefined;
  const path = posix.normalize(slashed).replace(/\/+$/, "");
  if (path === "." || path === "") return "";
  if (path === ".." || path.startsWith("../")) return undefined;
  return path;
}

/** Colours stripped, carriage returns and whitespace runs collapsed, for a fair substring match. */
export function normalize(text: string): string {
  return stripVTControlCharacters(text).replace(/\s+/g, " ").trim();
}
