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
  /** The comments on a pull request and the replies to them (`/loopwright` review rounds). */
  comments: PullRequestComments;
}

/**
 * A comment on a pull request: in its conversation (GitHub and Gitea issue comments, a GitLab note of
 * its own) or on its diff (a review comment, a GitLab diff note), with the code it points at.
 */
export interface PullRequestComment {
  /** Unique on the forge, kind included: `issue:123`, `review:456`, `note:789`. */
  id: string;
  kind: "conversation" | "diff";
  author: string;
  body: string;
  url?: string;
  createdAt: string;
  path?: string;
  line?: number;
  /** The forge's diff hunk that ends at the commented line (GitHub, Gitea). */
  diffHunk?: string;
  /** What a reply in the same thread needs: GitHub's review comment id, GitLab's discussion id. */
  thread?: string;
}

export interface PullRequestComments {
  /** Every comment on the pull request, oldest first (bounded: the first 1000). */
  list(number: number): Promise<PullRequestComment[]>;
  /** Whether `author` may push to the repository (GitHub and Gitea: write permission; GitLab: Developer). */
  canWrite(author: string): Promise<boolean>;
  /** Replies to `comment` (in its thread where the forge has threads), returning the reply's URL if any. */
  reply(number: number, comment: PullRequestComment, body: string): Promise<string | undefined>;
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
