/** Failure digests of gate logs: what failed, where and why, bounded for a brief. */

export { digestLog } from "./digest-log.ts";
export { createDigestParser, type DigestParser, digestText, warmDigestSearches } from "./digest-parser.ts";
export type {
  Anchor,
  Digest,
  DigestLimits,
  DigestOptions,
  FailureBlock,
  RunnerName,
} from "./digest-types.ts";
export { defaultDigestLimits } from "./digest-types.ts";
export { defaultDigestBytes, renderDigest } from "./render-digest.ts";
