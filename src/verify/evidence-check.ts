/**
 * The mechanical half of judging a verdict: every piece of evidence must point at something real. A
 * cited file must exist at the graded commit with the line in range; a quoted output must appear in that
 * gate's recorded logs of this commit (colours stripped, whitespace runs collapsed).
 */
import { stripVTControlCharacters } from "node:util";
import type { Verdict } from "../loop/events.ts";

export interface EvidenceSources {
  /** The number of lines of a file at the graded commit, or undefined when it does not exist there. */
  lineCount(path: string): Promise<number | undefined>;
  /** Everything the gate printed in its runs on the graded commit, or undefined when it never ran. */
  gateOutput(gateId: string): Promise<string | undefined>;
}

/** One line per piece of evidence that points at nothing. */
export async function checkEvidence(verdict: Verdict, sources: EvidenceSources): Promise<string[]> {
  const problems: string[] = [];
  for (const ruling of verdict.gates) {
    for (const evidence of ruling.evidence) {
      if ("file" in evidence) {
        const path = evidence.file.replace(/^\.\//, "");
        if (path === "." || path === "") continue;
        const lines = await sources.lineCount(path);
        if (lines === undefined)
          problems.push(`gates.${ruling.id}: cites ${evidence.file}, which does not exist in the commit`);
        else if (evidence.line !== undefined && evidence.line > lines) {
          problems.push(
            `gates.${ruling.id}: cites ${evidence.file}:${evidence.line}, but the file has ${lines} lines`,
          );
        }
        continue;
      }
      const output = await sources.gateOutput(evidence.gate);
      if (output === undefined) {
        problems.push(
          `gates.${ruling.id}: quotes gate '${evidence.gate}', which has no output on this commit`,
        );
      } else if (!normalize(output).includes(normalize(evidence.quote))) {
        const quote = evidence.quote.length > 80 ? `${evidence.quote.slice(0, 80)}...` : evidence.quote;
        problems.push(
          `gates.${ruling.id}: the quote ${JSON.stringify(quote)} never appeared in gate '${evidence.gate}' output`,
        );
      }
    }
  }
  return problems;
}

/** Colours stripped, carriage returns and whitespace runs collapsed, for a fair substring match. */
export function normalize(text: string): string {
  return stripVTControlCharacters(text).replace(/\s+/g, " ").trim();
}
