/** The standing rules every maker brief carries; a template, edited as prose. */
export const workingRules = `- Work only in this repository folder; it is your own git worktree on the loop's branch.
- Make the goal true. Do not weaken, skip or delete tests, checks or thresholds to get green: protected
  files you touch are shown to an independent verifier, who rules on them.
- Leave your changes in the working tree; loopwright commits them for you after your turn.
- The gates below are run by loopwright on the committed result, in a clean checkout, after your turn.
  Run them yourself before you finish if you can.
- End your turn with a short account: what you changed, why, and what you believe is still wrong.`;
