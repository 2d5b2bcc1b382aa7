/**
 * SHA-256 (FIPS 180-4) in JavaScript, for the few small inputs of a hook: the same digest as
 * node:crypto's, without loading node:crypto (17 builtin modules with the streams it pulls in: about
 * 0.1× `node -e ''` of CPU per stop, interleaved runs on a 2-core machine). Cold JavaScript is slow,
 * so a process hashes only its first few KB here (see `sha256Hex` in content-stamps.ts). Pure.
 */

const roundConstants = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

const initialHash = [
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/** The SHA-256 of `bytes`, in lowercase hex. */
export function sha256HexOf(bytes: Uint8Array): string {
  const length = bytes.length;
  // The message, a 1 bit, zeros, and its length in bits (64-bit big-endian), in 64-byte blocks.
  const padded = new Uint8Array(Math.ceil((length + 9) / 64) * 64);
  padded.set(bytes);
  padded[length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(length / 0x20000000));
  view.setUint32(padded.length - 4, (length << 3) >>> 0);

  const hash = Int32Array.from(initialHash);
  const schedule = new Int32Array(64);
  for (let offset = 0; offset < padded.length; offset += 64) {
    for (let t = 0; t < 16; t++) schedule[t] = view.getInt32(offset + t * 4);
    for (let t = 16; t < 64; t++) {
      const early = schedule[t - 15];
      const late = schedule[t - 2];
      const sigma0 = rotate(early, 7) ^ rotate(early, 18) ^ (early >>> 3);
      const sigma1 = rotate(late, 17) ^ rotate(late, 19) ^ (late >>> 10);
      schedule[t] = (schedule[t - 16] + sigma0 + schedule[t - 7] + sigma1) | 0;
    }
    let [a, b, c, d, e, f, g, h] = hash;
    for (let t = 0; t < 64; t++) {
      const sum1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25);
      const choice = (e & f) ^ (~e & g);
      const first = (h + sum1 + choice + roundConstants[t] + schedule[t]) | 0;
      const sum0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22);
      const majority = (a & b) ^ (a & c) ^ (b & c);
      const second = (sum0 + majority) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + first) | 0;
      d = c;
      c = b;
      b = a;
      a = (first + second) | 0;
    }
    hash[0] += a;
    hash[1] += b;
    hash[2] += c;
    hash[3] += d;
    hash[4] += e;
    hash[5] += f;
    hash[6] += g;
    hash[7] += h;
  }
  let hex = "";
  for (const word of hash) hex += (word >>> 0).toString(16).padStart(8, "0");
  return hex;
}

function rotate(word: number, bits: number): number {
  return (word >>> bits) | (word << (32 - bits));
}
