/** The replanner's prompt: a short read-only turn that rewrites the approach after a repeated failure. */
export function buildReplannerPrompt(brief: string): string {
  return `You are the replanner of a coding loop. The maker's last attempts produced the same change and the
same failures as before: the approach is stuck. Read the situation below (and the repository, read-only),
then propose a genuinely different approach. Do not edit anything.

Print exactly one JSON value and nothing else:
{"approach": "<the new approach, concrete, a few sentences>", "hypotheses": ["<why the earlier attempts failed>", "..."],
 "lesson": "<optional: one imperative line this loop should follow from now on>"}

---
${brief}`;
}
