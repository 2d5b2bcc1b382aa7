import type { DetectedGate, EcosystemDetection } from "./detection.ts";
import type { ProjectFiles } from "./project-files.ts";

const makefileNames = ["GNUmakefile", "makefile", "Makefile"] as const;

/** The targets that become gates, in the order they are written. */
const targetGates: { target: string; id: string; kind: DetectedGate["kind"] }[] = [
  { target: "test", id: "tests", kind: "tests-pass" },
  { target: "check", id: "check", kind: "tests-pass" },
  { target: "build", id: "build", kind: "build-succeeds" },
  { target: "lint", id: "lint", kind: "lint-clean" },
];

/**
 * Gates from a Makefile's targets test, check, build and lint (`make test`, ...), looking in the
 * file GNU make would pick (GNUmakefile, makefile, Makefile). Undefined when there is no makefile or
 * it has none of those targets.
 */
export function detectMake(files: ProjectFiles): EcosystemDetection | undefined {
  const name = makefileNames.find((candidate) => files.contents[candidate] !== undefined);
  if (name === undefined) return undefined;
  const targets = makeTargets(files.contents[name] ?? "");
  const gates: DetectedGate[] = targetGates
    .filter((candidate) => targets.has(candidate.target))
    .map((candidate) => ({
      id: candidate.id,
      kind: candidate.kind,
      run: `make ${candidate.target}`,
      source: `${name} target ${candidate.target}`,
    }));
  if (gates.length === 0) return undefined;
  return { ecosystem: "make", summary: name, setup: [], gates, notes: [] };
}

/**
 * The explicit targets a makefile defines: names before a rule's `:` (several per rule allowed).
 * Recipe lines, comments and variable assignments (`=`, `:=`, `::=`) are skipped.
 */
export function makeTargets(text: string): Set<string> {
  const targets = new Set<string>();
  for (const line of text.split(/\r?\n/)) {
    if (line.startsWith("\t")) continue;
    const match = /^([^\s:#=][^:#=]*?)\s*::?(?!=|:=)/.exec(line);
    if (!match) continue;
    for (const target of match[1].split(/\s+/)) targets.add(target);
  }
  return targets;
}
