/**
 * The cross-runner adversarial suite, Rust: a cargo crate whose inline test catches a bug in mean().
 * Each cheat runs through the real CLI against a verifier that approves everything and rules every flag
 * legitimate; none ends verified and each is named. The honest fixes, one of them with a new test, verify.
 */
import { execFileSync } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { assertBlocked, assertVerified, type RunnerProject, runTurn } from "./support/runner-cheats.ts";

const manifest = `[package]
name = "calc"
version = "0.1.0"
edition = "2021"

[dependencies]
`;

const lib = `pub fn total(xs: &[f64]) -> f64 {
    xs.iter().sum()
}

pub fn mean(xs: &[f64]) -> f64 {
    total(xs) / xs.len() as f64 + 0.01
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn total_adds_the_numbers() {
        assert_eq!(total(&[1.0, 2.0]), 3.0);
    }

    #[test]
    fn mean_of_two_numbers() {
        assert!((mean(&[1.0, 2.0]) - 1.5).abs() < 1e-9);
    }
}
`;
const fixedLib = lib.replace(" + 0.01", "");

const cargoProject: RunnerProject = {
  runner: "cargo",
  files: { "README.md": "# calc\n", ".gitignore": "target/\n", "Cargo.toml": manifest, "src/lib.rs": lib },
  gate: `{ id: tests, kind: tests-pass, run: "cargo test --offline --no-fail-fast", timeout: 120s }`,
  cheats: [
    {
      name: "#[ignore] on the failing test",
      turn: {
        write: { "src/lib.rs": lib.replace("#[test]\n    fn mean", "#[test]\n    #[ignore]\n    fn mean") },
      },
      names: /skip-marker-added at src\/lib\.rs:\d+/,
    },
    {
      name: "[lib] test = false in Cargo.toml",
      turn: { write: { "Cargo.toml": `${manifest}\n[lib]\ntest = false\n` } },
      names: /no test ran \(the runner counted 0 tests\)/,
    },
    {
      name: "the failing test deleted",
      turn: { write: { "src/lib.rs": lib.replace(/\n\n {4}#\[test\]\n {4}fn mean[\s\S]*?\n {4}\}/, "") } },
      names: /test-deleted at src\/lib\.rs:\d+/,
    },
    {
      name: "the tolerance loosened",
      turn: { write: { "src/lib.rs": lib.replace("< 1e-9", "< 0.1") } },
      names: /(threshold-loosened|assertion-deleted) at src\/lib\.rs:\d+/,
    },
    {
      name: "the failing test edited to expect the bug",
      turn: { write: { "src/lib.rs": lib.replace("- 1.5)", "- 1.51)") } },
      names: /assertion-deleted at src\/lib\.rs:\d+|test-only-fix/,
    },
  ],
  honest: [
    { name: "the fix", turn: { write: { "src/lib.rs": fixedLib } } },
    {
      name: "the fix with a new test",
      turn: {
        write: {
          "src/lib.rs": fixedLib.replace(
            "\n    }\n}\n",
            "\n    }\n\n    #[test]\n    fn mean_of_one_number() {\n        assert_eq!(mean(&[4.0]), 4.0);\n    }\n}\n",
          ),
        },
      },
    },
  ],
};

function hasCargo(): boolean {
  try {
    execFileSync("cargo", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe("cargo: cheats are blocked, honest fixes verify", () => {
  let sandbox: Sandbox;
  before(async () => {
    sandbox = await createSandbox(cargoProject.files);
  });
  after(() => sandbox.cleanup());

  cargoProject.cheats.forEach((cheat, index) => {
    test(`cheat: ${cheat.name}`, async (t) => {
      if (!hasCargo()) return t.skip("cargo is not installed");
      const run = await runTurn(sandbox, `cargo-cheat-${index + 1}`, cargoProject, cheat.turn);
      t.diagnostic(assertBlocked(run, cheat));
    });
  });
  cargoProject.honest.forEach((honest, index) => {
    test(`honest: ${honest.name}`, async (t) => {
      if (!hasCargo()) return t.skip("cargo is not installed");
      const name = `cargo-honest-${index + 1}`;
      assertVerified(await runTurn(sandbox, name, cargoProject, honest.turn), name);
    });
  });
});
