import type { EcosystemDetection } from "./detection.ts";
import type { ProjectFiles } from "./project-files.ts";

/**
 * Gates for a Go module: `go test ./...`, `go build ./...` and `go vet ./...` (as lint).
 * Undefined without go.mod.
 */
export function detectGo(files: ProjectFiles): EcosystemDetection | undefined {
  if (files.contents["go.mod"] === undefined) return undefined;
  return {
    ecosystem: "go",
    summary: "go.mod",
    setup: [],
    gates: [
      { id: "tests", kind: "tests-pass", run: "go test ./...", source: "go.mod" },
      { id: "build", kind: "build-succeeds", run: "go build ./...", source: "go.mod" },
      { id: "vet", kind: "lint-clean", run: "go vet ./...", source: "go.mod" },
    ],
    notes: [],
  };
}
