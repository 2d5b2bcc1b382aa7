/**
 * `demo --engine claude-code|codex|copilot`: the demo with a real agent CLI as the maker and another as
 * the verifier, both driven by the scripted mock model, so a person can watch the real tools work with
 * no API key. The script makes the maker read the file, write the half fix, then (next iteration) the
 * full fix, each with the tools that CLI really advertises; the verifier answers with a verdict whose
 * evidence points at real lines.
 */
import type { ScriptInput } from "../mock-model/script.ts";
import { fullFix, halfFix, sampleGates } from "./sample-project.ts";

export const rehearsalEngines = ["claude-code", "codex", "copilot"] as const;
export type RehearsalEngine = (typeof rehearsalEngines)[number];

/** The verifier of a rehearsal: another CLI than the maker, from another provider. */
export function rehearsalVerifier(maker: RehearsalEngine): RehearsalEngine {
  return maker === "claude-code" ? "codex" : "claude-code";
}

export function rehearsalSpec(maker: RehearsalEngine): string {
  return `name: slug-demo
goal: |
  Every test in test/slugify.test.js passes, without changing the tests.
repo: ./project
maker: { engine: ${maker} }
verifier: { engine: ${rehearsalVerifier(maker)} }
${sampleGates}`;
}

/** One attempt's tool calls in the maker's own tool vocabulary: look at the file, then replace it. */
function attempt(maker: RehearsalEngine, content: string, account: string): ScriptInput["turns"] {
  const rewrite = `cat > src/slugify.js <<'LOOPWRIGHT_EOF'\n${content}LOOPWRIGHT_EOF`;
  switch (maker) {
    case "claude-code":
      return [
        { tools: [{ name: "Read", input: { file_path: "{{cwd}}/src/slugify.js" } }] },
        { tools: [{ name: "Write", input: { file_path: "{{cwd}}/src/slugify.js", content } }] },
        { text: account },
      ];
    case "codex":
      return [
        { tools: [{ name: "exec_command", input: { cmd: "cat src/slugify.js" } }] },
        { tools: [{ name: "exec_command", input: { cmd: rewrite } }] },
        { text: account },
      ];
    case "copilot":
      return [
        { tools: [{ name: "bash", input: { command: "cat src/slugify.js", description: "read the code" } }] },
        { tools: [{ name: "bash", input: { command: rewrite, description: "rewrite slugify" } }] },
        { text: account },
      ];
  }
}

export function rehearsalScript(maker: RehearsalEngine): ScriptInput {
  const verdict = {
    overall: "pass",
    gates: [
      { id: "tests", passed: true, evidence: [{ file: "test/slugify.test.js", line: 7 }] },
      { id: "syntax", passed: true, evidence: [{ file: "src/slugify.js", line: 2 }] },
      {
        id: "readable",
        passed: true,
        reason: "the doc comment names the result",
        evidence: [{ file: "src/slugify.js", line: 1 }],
      },
    ],
    tamper: [],
    notes: "rehearsal verdict",
  };
  return {
    conversations: [
      {
        name: "verifier",
        when: { contains: "independent verifier of a coding loop" },
        turns: [{ json: verdict }],
      },
      {
        name: "maker-1",
        when: { contains: "# Loop slug-demo: iteration 1 " },
        turns: attempt(maker, halfFix, "Lowercased the title before joining words with dashes."),
      },
      {
        name: "maker-2",
        when: { contains: "# Loop slug-demo: iteration 2 " },
        turns: attempt(
          maker,
          fullFix,
          "Replaced every run of non-alphanumerics with one dash and trimmed the ends.",
        ),
      },
    ],
  } as ScriptInput;
}
