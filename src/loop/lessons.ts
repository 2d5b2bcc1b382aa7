/**
 * Lessons learned by a loop: one imperative line each, from a verifier that rejected something or a
 * replanner, kept on the timeline. Later briefs of the loop quote them; the report lists them for the
 * user to adopt into the repository's LESSONS.md. loopwright never writes that file itself. Pure.
 */
import type { LoopState } from "./state.ts";

/** The brief's section of the loop's own lessons; undefined when it has none. */
export function lessonsSection(state: LoopState): string | undefined {
  if (state.lessons.length === 0) return undefined;
  const lines = state.lessons.map((lesson) => `- ${lesson.text}`);
  return `## Lessons this loop learned\nEarlier turns of this loop taught these; follow them:\n${lines.join("\n")}`;
}

/** The report's section: each lesson with where it came from, and how to adopt it. */
export function lessonsReport(state: LoopState): string[] {
  if (state.lessons.length === 0) return [];
  return [
    "## Lessons learned (to adopt into LESSONS.md)",
    "",
    "loopwright does not write LESSONS.md; copy the lines that hold for this repository.",
    "",
    ...state.lessons.map(
      (lesson) => `- ${lesson.text} _(the ${lesson.source}, iteration ${lesson.iteration})_`,
    ),
    "",
  ];
}
