/** LESSONS.md as `init claude` creates it when the project has none. Pure. */
export function lessonsFile(): string {
  return `# Lessons

One imperative line per lesson, added when loopwright's Stop hook asks for one: it asks when it blocks
Claude for something Claude should have known. Read this file before starting a task. Keep each line
short, in the imperative, without explanation; delete a lesson that no longer applies.

`;
}
