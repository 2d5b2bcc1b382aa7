/**
 * The JSON context a turn is given (the command engine publishes it as `$LOOPWRIGHT_CONTEXT_FILE`).
 * Its field names are a public contract: people script against them.
 */
export interface TurnContext {
  loop: string;
  iteration: number;
  role: "maker" | "verifier" | "replanner" | "reviewer";
  goal: string;
  baseSha: string;
  /** The commit being graded (verifier), or the commit the maker starts from. */
  sha: string;
  /** A file holding the diff from base to `sha`, once there is one. */
  diffPath?: string;
  changedFiles: string[];
  protectedFiles: string[];
  /** Tamper flags of the graded change, which a verifier must rule on by id. */
  tamperFlags: { id: string; kind: string; file?: string; line?: number; detail: string }[];
  /** Every gate of the spec; results are the graded commit's (verifier, replanner) or the last graded iteration's (maker). */
  gates: {
    id: string;
    kind: string;
    command?: string;
    assert?: string;
    required: boolean;
    exitCode?: number | null;
    passed?: boolean;
    /**
     * Whether the result counts as passed, which is what a verifier may approve: exit 0, or failures its
     * `baseline` policy accepts (they predate the loop), or a flake the gate reports without blocking.
     */
    accepted?: boolean;
    durationMs?: number;
    logPath?: string;
    tail?: string;
  }[];
}
