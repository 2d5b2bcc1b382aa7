/** The Definition of Done section `init claude` writes into CLAUDE.md, naming the gates of loop.yaml. Pure. */
import type { HookGate } from "../hook-spec.ts";
import type { HookLimits } from "../work/deferred-work.ts";

export const sectionBegin =
  "<!-- loopwright:begin (written by `loopwright init claude`; `loopwright init claude --remove` takes it out) -->";
export const sectionEnd = "<!-- loopwright:end -->";

export function definitionOfDone(options: {
  gates: HookGate[];
  limits: HookLimits;
  reviewerAgent: string;
  closeCommand: string;
}): string {
  const commands = options.gates.filter((gate) => gate.run !== undefined);
  const criteria = options.gates.filter((gate) => gate.assert !== undefined);
  const gateLines = commands.length
    ? commands.map(
        (gate) =>
          `   - \`${gate.id}\` (${gate.kind}): \`${gate.run}\`, ${gate.timing === "on-close" ? "when the work closes" : "at every stop"}${gate.required ? "" : " (not required)"}`,
      )
    : ["   - (loop.yaml has no gate yet: add some, then run `loopwright init claude` again)"];
  const criteriaLines = criteria.map((gate) => `   - ${gate.assert}`);
  const { limits } = options;
  return [
    sectionBegin,
    "## Definition of Done",
    "",
    "A task is done only when all of these hold; loopwright's Stop hook checks them and does not let",
    "you stop until they do.",
    "",
    "1. The gates of loop.yaml pass in this working tree:",
    ...gateLines,
    `2. When the work closes, the ${options.reviewerAgent} subagent has reviewed the current changes and`,
    "   reported no [CRITICAL] finding. The hook derives the verdict from its report: never write one yourself.",
    ...(criteriaLines.length ? ["   It also checks these acceptance criteria:", ...criteriaLines] : []),
    "3. When the hook asks for it, you have added one imperative line to LESSONS.md.",
    "",
    "Run the gates yourself before you finish. While one of these is false: fix it, then start again at 1.",
    `Your first edit opens the work; its review is deferred until the work closes: when the user agrees to`,
    `close it (\`${options.closeCommand}\`), after ${limits.deferTurns} turns, in a new session, or ${limits.deferMs / 3600_000} h after it opened.`,
    "The lessons of this project (LESSONS.md, imported here so that you always have them): follow them.",
    "@LESSONS.md",
    sectionEnd,
    "",
  ].join("\n");
}
