/**
 * SHA-256 in JavaScript (@noble/hashes, audited and without dependencies), for the few small inputs
 * of a hook: the same digest as node:crypto's, without loading node:crypto (17 builtin modules with
 * the streams it pulls in: about 0.1× `node -e ''` of CPU per stop, interleaved runs on a 2-core
 * machine). Cold JavaScript is slow, so a process hashes only its first few KB here (see `sha256Hex`
 * in content-stamps.ts). Pure.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";

/** The SHA-256 of `bytes`, in lowercase hex. */
export function sha256HexOf(bytes: Uint8Array): string {
  return bytesToHex(sha256(bytes));
}
