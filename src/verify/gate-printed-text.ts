/**
 * What a gate printed, from its log: the log holds, around the gate's own output, lines loopwright
 * writes (a `$ command` line and a `# gate …` line before, a `# exit 0 after 1.2 s` line after; see
 * `run-gates.ts`), and a marker where a long log was cut. A verifier's quote must come from the output,
 * not from those. Pure.
 */

const footer = /^# (?:exit \S+(?: \(\w+\))?|timed out|cancelled)(?: \(\w+\))? after [\d.]+ s\b/;
/** The marker where a capped log was cut (see `capped-log.ts`). */
const cutMarker = /^\[loopwright\] \d+ bytes .* of output cut here/;

/** `log` without loopwright's header (`$ …` then `# gate …`) and footer lines, for each run it holds. */
export function gatePrintedText(log: string): string {
  const lines = log.split("\n");
  const kept: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    if (line.startsWith("$ ") && lines[index + 1]?.startsWith("# gate ")) {
      index++;
      continue;
    }
    if (footer.test(line) || cutMarker.test(line)) continue;
    kept.push(line);
  }
  return kept.join("\n");
}
