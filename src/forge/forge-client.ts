/**
 * The few forge operations a loop needs, the same on every forge: check access, find the open pull
 * (merge) request of a branch, open one, update one. loopwright never merges.
 */
import type { ForgeKind, ForgeTarget } from "./forge-target.ts";

/** An open pull request (GitLab: merge request); `number` is GitLab's `iid`. */
export interface PullRequestReference {
  number: number;
  url: string;
}

export interface PullRequestContent {
  title: string;
  body: string;
}

export interface NewPullRequest extends PullRequestContent {
  head: string;
  base: string;
  draft: boolean;
  labels: readonly string[];
}

export interface ForgeClient {
  forge: ForgeKind;
  /** Undefined when the token can read the repository and push to it, else a problem naming the fix. */
  checkAccess(): Promise<string | undefined>;
  /** The open pull request from `head` into `base`, if there is one. */
  findOpen(head: string, base: string): Promise<PullRequestReference | undefined>;
  create(request: NewPullRequest): Promise<PullRequestReference>;
  update(number: number, content: PullRequestContent): Promise<PullRequestReference>;
}

/** Options every client takes. */
export interface ForgeClientOptions {
  target: ForgeTarget;
  token: string;
  /** Told each time a rate limit is waited out (the step records it on the timeline). */
  onWait?: (message: string) => void;
  /** The longest single rate-limit wait accepted, in milliseconds (default 5 minutes); longer fails. */
  maxWaitMs?: number;
}

export const defaultMaxRateLimitWaitMs = 300_000;

/** A forge answered with an error: the HTTP status (0 when it could not be reached) and a clear message. */
export class ForgeRequestError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = "ForgeRequestError";
    this.status = status;
  }
}
