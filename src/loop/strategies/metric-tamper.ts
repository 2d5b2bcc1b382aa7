/**
 * The frozen evaluator of `strategy: metric`: in one attempt's change, an added or removed line that
 * sets a random seed or a sample or evaluation count, and any changed evaluation data file, is the
 * blocking flag `metric-evaluation-changed`: a metric "improved" that way measures something else.
 * (The files the metric command runs are in the tamper set too, as advisory flags the verifier rules
 * on.) Pure.
 */
import { excerpt } from "../../core/tamper-flag.ts";
import { parseUnifiedDiff } from "../../verify/tamper/unified-diff.ts";

export interface EvaluationFlag {
  kind: "metric-evaluation-changed";
  file: string;
  line?: number;
  detail: string;
}

const seedLine = /\bseed\b|\bseed[_A-Z]|[_a-z]seed\b|SEED/i;
const countLine =
  /\b(?:n_?|num_?)?(?:samples?|sample_count|eval_?(?:iters|steps|batches|tokens|samples|size|runs))\b\s*[:=(]/i;
const dataFile =
  /(?:^|\/)(?:eval|evals|evaluation|data|datasets?|testdata|benchmarks?)\/|\.(?:csv|tsv|jsonl|parquet|npy|npz|arrow|bin)$/i;

export function evaluationFlags(diff: string): EvaluationFlag[] {
  const flags: EvaluationFlag[] = [];
  for (const file of parseUnifiedDiff(diff)) {
    if (dataFile.test(file.path) || dataFile.test(file.oldPath)) {
      flags.push({
        kind: "metric-evaluation-changed",
        file: file.path,
        detail: `evaluation data changed (${file.status})`,
      });
      continue;
    }
    for (const line of file.hunks.flatMap((hunk) => hunk.lines)) {
      if (line.sign === " " || !/\d/.test(line.text)) continue;
      const what = seedLine.test(line.text)
        ? "a random seed"
        : countLine.test(line.text)
          ? "a sample or evaluation count"
          : undefined;
      if (!what) continue;
      flags.push({
        kind: "metric-evaluation-changed",
        file: file.path,
        line: line.sign === "+" ? line.newLine : line.oldLine,
        detail: `${what} changed: ${line.sign === "+" ? "" : "removed "}${excerpt(line.text)}`,
      });
      break;
    }
  }
  return flags;
}
