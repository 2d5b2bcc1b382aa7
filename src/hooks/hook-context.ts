/** What every hook event handler is given. */
import type { GitResult } from "../git/git.ts";
import type { HookInput, HookOutput } from "./hook-io.ts";
import type { HookLayout } from "./hook-layout.ts";
import type { ReviewerNaming } from "./templates/hook-messages.ts";
import type { HookLimits } from "./work/deferred-work.ts";

export interface HookContext {
  input: HookInput;
  layout: HookLayout;
  now: Date;
  limits: HookLimits;
  naming: ReviewerNaming;
  /** The command that closes the work, as the agent or the user would type it. */
  closeCommand: string;
  /** The repository's name, for status lines. */
  repository: string;
  /** The working tree's `git status`, started before the handler loaded (`stop`, `prompt` with open work). */
  status?: PromiseLike<GitResult>;
}

export type HookHandler = (context: HookContext) => Promise<HookOutput>;

/** The reviewer subagent's name as `init claude` writes it; plugins prefix it (`loopwright:`). */
export const reviewerAgentName = "loopwright-reviewer";

/** True for the reviewer subagent, installed in the project or by a plugin (`<plugin>:loopwright-reviewer`). */
export function isReviewerAgent(agentType: string | undefined): boolean {
  return agentType === reviewerAgentName || (agentType?.endsWith(`:${reviewerAgentName}`) ?? false);
}
