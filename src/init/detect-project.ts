import { detectGo } from "./detect-go.ts";
import { detectMake } from "./detect-make.ts";
import { detectNode } from "./detect-node.ts";
import { detectPython } from "./detect-python.ts";
import { detectRust } from "./detect-rust.ts";
import type { Detection, EcosystemDetection } from "./detection.ts";
import type { ProjectFiles } from "./project-files.ts";

/** The detectors, in the order their gates appear in loop.yaml. */
const detectors: ((files: ProjectFiles) => EcosystemDetection | undefined)[] = [
  detectNode,
  detectPython,
  detectRust,
  detectGo,
  detectMake,
];

/**
 * Detects every ecosystem in a project folder and merges their proposals. When more than one
 * ecosystem proposes gates, each gate id is prefixed with its ecosystem (`node-tests`,
 * `make-tests`) so that ids stay distinct; setup commands are concatenated without duplicates.
 * Pure: reads only `files`.
 */
export function detectProject(files: ProjectFiles): Detection {
  const found = detectors.map((detect) => detect(files)).filter((detection) => detection !== undefined);
  const prefixed = found.filter((detection) => detection.gates.length > 0).length > 1;
  const ecosystems = found.map((detection) => ({
    ...detection,
    gates: detection.gates.map((gate) => ({
      ...gate,
      id: prefixed ? `${detection.ecosystem}-${gate.id}` : gate.id,
    })),
  }));
  return {
    ecosystems,
    setup: [...new Set(ecosystems.flatMap((detection) => detection.setup))],
    gates: ecosystems.flatMap((detection) => detection.gates),
  };
}
