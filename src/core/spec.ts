import { z } from "zod";
import { branchNameProblem } from "./branch-name.ts";
import { timerDuration } from "./duration.ts";
import { isDeterministic, verifierGateId } from "./gate-facts.ts";
import { reviewerEngine } from "./review-engine.ts";
import { scheduleSchema } from "./schedule-field.ts";
import { criterionGatePrefix, defaultStrategy, strategySchema } from "./strategy-spec.ts";
import { resolveAcceptName } from "./tamper-acceptance.ts";

/**
 * The loop spec: the user-facing YAML format, validated at the boundary. Parsing yields a `Spec` with
 * every default filled in and every duration in milliseconds. Field names are a public contract.
 */

export const engineNames = ["command", "scripted", "claude-code", "codex", "copilot", "builtin"] as const;
export type EngineName = (typeof engineNames)[number];

export const deterministicGateKinds = ["tests-pass", "build-succeeds", "lint-clean", "eval-script"] as const;
export const gateKinds = [...deterministicGateKinds, "agent-check"] as const;
export type GateKind = (typeof gateKinds)[number];

export { isDeterministic, verifierGateId };

const duration = z.union([z.number(), z.string()]).transform((value, context) => {
  const read = timerDuration(value);
  if ("problem" in read) {
    context.addIssue({ code: "custom", message: read.problem });
    return z.NEVER;
  }
  return read.ms;
});

const dollars = z.number().nonnegative();

/*
 * Sections most specs leave out (scripted turns, review, tamper, finish; schedule in schedule-field.ts)
 * are z.lazy: zod builds a lazy schema's inner schema at the first parse that reaches it, so a spec
 * without the section costs its parse none of that construction (most of the parser's start-up after
 * zod's own load). A lazy schema parses, fails and converts to JSON Schema as its inner schema does;
 * a default (`finish`, `tamper`) is returned without reaching it.
 */

/** One turn of the scripted engine; its steps run in this order: delete, write, append, run, sleep, say/print, verdict, replan, exit. */
export const scriptedTurnSchema = z.lazy(() =>
  z
    .object({
      delete: z.array(z.string()).optional(),
      write: z.record(z.string(), z.string()).optional(),
      append: z.record(z.string(), z.string()).optional(),
      run: z.array(z.string()).optional(),
      sleep: duration.optional(),
      say: z.string().optional(),
      print: z.string().optional(),
      verdict: z
        .union([z.literal("auto"), z.literal("reject"), z.record(z.string(), z.unknown())])
        .optional(),
      replan: z
        .object({
          approach: z.string(),
          hypotheses: z.array(z.string()).default([]),
          lesson: z.string().optional(),
        })
        .optional(),
      exit: z.number().int().optional(),
      costUsd: dollars.optional(),
    })
    .strict(),
);
export type ScriptedTurn = z.infer<typeof scriptedTurnSchema>;

/** A scripted engine's `script:` file: its turns. */
export const scriptFileSchema = z.lazy(() => z.object({ turns: z.array(scriptedTurnSchema) }).strict());

export const engineSchema = z
  .object({
    engine: z.union([z.enum(engineNames), z.literal("auto")]),
    run: z.string().min(1).optional(),
    script: z.string().optional(),
    turns: z.array(scriptedTurnSchema).optional(),
    model: z.string().optional(),
    args: z.array(z.string()).optional(),
  })
  .strict()
  .superRefine((engine, context) => {
    if (engine.engine === "command" && !engine.run) {
      context.addIssue({ code: "custom", path: ["run"], message: "required for engine command" });
    }
    if (engine.engine === "scripted" && !engine.turns && !engine.script) {
      context.addIssue({ code: "custom", path: ["turns"], message: "engine scripted needs turns or script" });
    }
  });
export type EngineSpec = z.infer<typeof engineSchema>;

/**
 * `review:` rounds by a second engine: after each maker turn that changed code, the reviewer reads only
 * that turn's patch (with the checklist and the goal) and answers `ok` or `changes_requested`; its
 * findings are the maker's next turn, at most `rounds` reviews per iteration, then the gates run. The
 * engine fields are an engine entry's; `auto` is not allowed (name the second engine).
 */
export const reviewSchema = z.lazy(() =>
  z
    .object({
      engine: z.enum(engineNames),
      run: z.string().min(1).optional(),
      script: z.string().optional(),
      turns: z.array(scriptedTurnSchema).optional(),
      model: z.string().optional(),
      args: z.array(z.string()).optional(),
      /** Reviews per iteration, at most; the gates run after the last. */
      rounds: z.number().int().min(1).max(20).default(3),
      /** What the reviewer checks the patch for, in the user's words. */
      checklist: z.string().trim().default(""),
    })
    .strict()
    .superRefine((review, context) => {
      if (review.engine === "command" && !review.run)
        context.addIssue({ code: "custom", path: ["run"], message: "required for engine command" });
      if (review.engine === "scripted" && !review.turns && !review.script)
        context.addIssue({
          code: "custom",
          path: ["turns"],
          message: "engine scripted needs turns or script",
        });
    }),
);
export type ReviewSpec = z.infer<typeof reviewSchema>;

export { reviewerEngine };

/**
 * Why a reviewer may not run as specified, if it may not: it must not be the maker's own engine and
 * model (a second opinion from the same model is no second opinion). Scripted engines have no model and
 * are exempt; a command engine is the maker's own when it runs the same command.
 */
export function sameEngineProblem(maker: EngineSpec, review: ReviewSpec): string | undefined {
  if (review.engine !== maker.engine || review.engine === "scripted") return undefined;
  if (review.engine === "command") {
    return review.run === maker.run
      ? "the reviewer runs the maker's own command; review with another engine"
      : undefined;
  }
  if ((review.model ?? "") !== (maker.model ?? "")) return undefined;
  const model = review.model ? `model ${review.model}` : "its default model";
  return `the reviewer is the maker's own engine and model (${review.engine} with ${model}); name another engine, or another model with review.model`;
}

export const gateSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, "use lowercase letters, digits, - and _"),
    kind: z.enum(gateKinds),
    run: z.string().min(1).optional(),
    assert: z.string().min(1).optional(),
    timeout: duration.default(600_000),
    required: z.boolean().default(true),
    parallel: z.boolean().default(true),
    /** strict: exit 0; no-new-failures: its failing tests are among the base commit's; must-improve: fewer of them. */
    baseline: z.enum(["strict", "no-new-failures", "must-improve"]).default("strict"),
    /** block: a gate that passes and fails on one commit cannot make the loop verified; report: it is named, not blocking. */
    flaky: z.enum(["block", "report"]).default("block"),
    /** How many times a green gate is re-run on the same commit before `verified`. */
    rerun: z.number().int().min(0).max(10).default(1),
    /**
     * tests-pass only: the command that reruns just the failing tests of a red run (`mix test --failed`).
     * Left out, loopwright derives one for the runners it knows, or reruns the whole command.
     */
    rerunFailed: z.string().min(1).optional(),
    /** Claude Code hook mode: `every-stop` (when absent) runs it at every stop, `on-close` when the work closes. */
    hook: z.enum(["every-stop", "on-close"]).optional(),
  })
  .strict()
  .superRefine((gate, context) => {
    if (gate.kind === "agent-check") {
      if (!gate.assert)
        context.addIssue({ code: "custom", path: ["assert"], message: "required for kind agent-check" });
      if (gate.run)
        context.addIssue({
          code: "custom",
          path: ["run"],
          message: "kind agent-check takes assert, not run",
        });
    } else if (!gate.run) {
      context.addIssue({ code: "custom", path: ["run"], message: `required for kind ${gate.kind}` });
    }
    if (gate.rerunFailed !== undefined && gate.kind !== "tests-pass") {
      context.addIssue({ code: "custom", path: ["rerunFailed"], message: "only for kind tests-pass" });
    }
    if (gate.id === verifierGateId) {
      context.addIssue({
        code: "custom",
        path: ["id"],
        message: `${verifierGateId} is built in and always on`,
      });
    }
  });
export type GateSpec = z.infer<typeof gateSchema>;

export const budgetSchema = z
  .object({
    maxIterations: z.number().int().nonnegative().default(3),
    wallClockPerIteration: duration.default(3_600_000),
    maxCostUsdPerIteration: dollars.default(10),
    maxCostUsdPerDay: dollars.default(25),
  })
  .strict();
export type Budget = z.infer<typeof budgetSchema>;

/**
 * `tamper.accept`: blocking tamper classes this loop accepts (kind names such as `skip-marker-added`, or
 * class names such as `skip-marker`); their flags go to the verifier instead of failing the iteration.
 * A non-empty `accept` needs a `reason`, which the report quotes.
 */
export const tamperSchema = z.lazy(() =>
  z
    .object({
      accept: z.array(z.string()).default([]),
      reason: z.string().trim().min(1).optional(),
    })
    .strict()
    .superRefine((tamper, context) => {
      tamper.accept.forEach((name, index) => {
        const resolved = resolveAcceptName(name);
        if ("problem" in resolved)
          context.addIssue({ code: "custom", path: ["accept", index], message: resolved.problem });
      });
      if (tamper.accept.length > 0 && !tamper.reason) {
        context.addIssue({
          code: "custom",
          path: ["reason"],
          message: "required when accept is not empty: say why these tamper classes are legitimate here",
        });
      }
    }),
);

/**
 * `finish.ci`: after the pull request, watch the forge's checks on its head commit. `wait` bounds the
 * whole watch of one round (0: no bound); `poll` is the first interval between looks (it grows with the
 * time waited, up to a minute); `maxRepairs` is how many repair iterations a failed check may start.
 */
export const ciSchema = z.lazy(() =>
  z
    .object({
      wait: duration.default(1_800_000),
      maxRepairs: z.number().int().min(0).max(20).default(3),
      poll: duration.default(15_000),
    })
    .strict()
    .refine((ci) => ci.poll > 0, { path: ["poll"], message: "must be more than 0 (e.g. 15s)" }),
);
export type CiSpec = z.infer<typeof ciSchema>;

/**
 * `finish:` what a verified loop leaves behind: nothing, its branch (pushed when there is a remote), or a
 * pull request (GitLab: merge request) from that branch, opened or updated, never merged. `forge`,
 * `api` and `repository` default to what the remote URL and the forge's environment variables say;
 * `base` to the branch the loop started from.
 */
export const finishSchema = z.lazy(() =>
  z
    .object({
      action: z.enum(["none", "branch", "pull-request"]).default("branch"),
      forge: z.enum(["auto", "github", "gitlab", "gitea"]).default("auto"),
      base: z.string().min(1).optional(),
      draft: z.boolean().default(false),
      labels: z.array(z.string().min(1)).default([]),
      api: z.url({ protocol: /^https?$/, message: "an http(s) URL, e.g. https://api.github.com" }).optional(),
      repository: z
        .string()
        .regex(/^[^/\s]+(\/[^/\s]+)+$/, "owner/name (GitLab: group/subgroup/name)")
        .optional(),
      /**
       * `/loopwright` review comments on the pull request: at most `maxRounds` rounds (0: none are acted
       * on); `serve` looks for new comments for `watch` after the loop ended (default 168h, a week). Not the
       * `review:` reviewer engine, which reviews each maker turn before the gates.
       */
      comments: z
        .object({
          maxRounds: z.number().int().min(0).max(50).default(3),
          watch: duration.default(7 * 24 * 3_600_000),
        })
        .strict()
        .optional(),
      ci: ciSchema.optional(),
    })
    .strict()
    .superRefine((finish, context) => {
      if (finish.action === "pull-request") return;
      for (const field of ["base", "api", "repository", "ci", "comments"] as const)
        if (finish[field] !== undefined)
          context.addIssue({ code: "custom", path: [field], message: "only for action pull-request" });
    }),
);
export type FinishSpec = z.infer<typeof finishSchema>;

export const specSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9-]+$/, "use lowercase letters, digits and -"),
    goal: z.string().trim().min(1, "required"),
    repo: z.string().default("."),
    base: z.string().default("HEAD"),
    branch: z.string().optional(),
    /** The shape of the loop (src/loop/strategies/): until-verified (default), streak. */
    strategy: strategySchema.default(defaultStrategy),
    /** Optional in the file: hook mode never runs a maker; `run` requires one (see spec-file.ts). */
    maker: engineSchema.optional(),
    verifier: engineSchema.default({ engine: "auto" }),
    review: reviewSchema.optional(),
    setup: z.array(z.string()).default([]),
    gates: z.array(gateSchema).default([]),
    budget: budgetSchema.default(budgetSchema.parse({}, { jitless: true })),
    scope: z
      .object({
        allow: z.array(z.string()).default(["**"]),
        deny: z.array(z.string()).default([]),
        protect: z.array(z.string()).default([]),
      })
      .strict()
      .default({ allow: ["**"], deny: [], protect: [] }),
    tamper: tamperSchema.default({ accept: [] }),
    finish: finishSchema.default({ action: "branch", forge: "auto", draft: false, labels: [] }),
    /** When the service starts a new run of this loop; only `run --detach` registers it (see schedule-field.ts). */
    schedule: scheduleSchema.optional(),
  })
  .strict()
  .superRefine((spec, context) => {
    const seen = new Set<string>();
    spec.gates.forEach((gate, index) => {
      if (seen.has(gate.id)) {
        context.addIssue({
          code: "custom",
          path: ["gates", index, "id"],
          message: `duplicate gate id ${gate.id}`,
        });
      }
      seen.add(gate.id);
    });
    const branchProblem = spec.branch === undefined ? undefined : branchNameProblem(spec.branch);
    if (branchProblem) {
      context.addIssue({
        code: "custom",
        path: ["branch"],
        message: `invalid branch name: ${branchProblem}`,
      });
    }
    if (spec.strategy.kind === "streak") streakProblems(spec.gates, context);
    if (spec.strategy.kind === "tasks") {
      spec.gates.forEach((gate, index) => {
        if (gate.id.startsWith(criterionGatePrefix))
          context.addIssue({
            code: "custom",
            path: ["gates", index, "id"],
            message: `${criterionGatePrefix}* ids are the current task's acceptance criteria under strategy tasks`,
          });
      });
    }
    if (spec.maker?.engine === "auto") {
      context.addIssue({
        code: "custom",
        path: ["maker", "engine"],
        message: "auto is for the verifier only",
      });
    }
    const reviewProblem = spec.maker && spec.review && sameEngineProblem(spec.maker, spec.review);
    if (reviewProblem)
      context.addIssue({ code: "custom", path: ["review", "engine"], message: reviewProblem });
  });

/**
 * A streak counts green full runs of the suite: it needs a required deterministic gate, and it decides
 * the re-runs itself, so a gate that sets its own re-runs, reports flakes or accepts old failures is a
 * contradiction the user must resolve (said, not silently overridden).
 */
function streakProblems(gates: GateSpec[], context: z.RefinementCtx): void {
  if (!gates.some((gate) => gate.required && isDeterministic(gate))) {
    context.addIssue({
      code: "custom",
      path: ["strategy"],
      message: "streak needs a required deterministic gate (the suite to run), e.g. kind tests-pass",
    });
  }
  gates.forEach((gate, index) => {
    const contradiction =
      gate.rerun !== 1
        ? ["rerun", "streak re-runs the suite itself (strategy.passes); leave rerun out"]
        : gate.flaky !== "block"
          ? ["flaky", "a streak exists to remove flakes: leave flaky out"]
          : gate.baseline !== "strict"
            ? ["baseline", "a streak counts only green runs: leave baseline out (strict)"]
            : undefined;
    if (contradiction)
      context.addIssue({
        code: "custom",
        path: ["gates", index, contradiction[0]],
        message: contradiction[1],
      });
  });
}

/** A validated spec that may lack a maker: enough for hook mode (goal and gates). */
export type AnyModeSpec = z.infer<typeof specSchema> & { branch: string };
/** A validated spec a loop can run (it has a maker), defaults applied; durations in milliseconds. */
export type Spec = AnyModeSpec & { maker: EngineSpec };

/** The JSON Schema of the spec as a user writes it (durations as strings or seconds). */
export function specJsonSchema(): unknown {
  return z.toJSONSchema(specSchema, { io: "input", unrepresentable: "any" });
}
