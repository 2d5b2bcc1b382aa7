import type { DetectedGate, EcosystemDetection } from "./detection.ts";
import { hasEntry, type ProjectFiles } from "./project-files.ts";
import { hasTomlTable } from "./toml-tables.ts";

/**
 * Gates for a Cargo project: `cargo test --no-fail-fast` (every test binary runs even when an earlier
 * one fails, so a baseline counts all the tests) and `cargo build` (with `--workspace` when Cargo.toml
 * declares a workspace), and clippy with warnings as errors only when the project shows it wants
 * clippy (a clippy.toml, `[lints.clippy]` in Cargo.toml, or clippy in rust-toolchain.toml).
 * Undefined when there is no Cargo.toml.
 */
export function detectRust(files: ProjectFiles): EcosystemDetection | undefined {
  const manifest = files.contents["Cargo.toml"];
  if (manifest === undefined) return undefined;
  const workspace = hasTomlTable(manifest, "workspace") ? " --workspace" : "";
  const gates: DetectedGate[] = [
    { id: "tests", kind: "tests-pass", run: `cargo test${workspace} --no-fail-fast`, source: "Cargo.toml" },
    { id: "build", kind: "build-succeeds", run: `cargo build${workspace}`, source: "Cargo.toml" },
  ];
  const wantsClippy =
    hasEntry(files, "clippy.toml") ||
    hasEntry(files, ".clippy.toml") ||
    hasTomlTable(manifest, "lints.clippy") ||
    hasTomlTable(manifest, "workspace.lints.clippy") ||
    /\bclippy\b/.test(files.contents["rust-toolchain.toml"] ?? "");
  if (wantsClippy) {
    gates.push({
      id: "lint",
      kind: "lint-clean",
      run: `cargo clippy${workspace} --all-targets -- -D warnings`,
      source: "clippy configured",
    });
  }
  return { ecosystem: "rust", summary: "Cargo.toml", setup: [], gates, notes: [] };
}
