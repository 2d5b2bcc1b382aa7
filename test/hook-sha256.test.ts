/**
 * The JavaScript SHA-256 the hooks hash small inputs with gives node:crypto's digest, byte for byte,
 * and the stamps and keys built on it are those node:crypto gave (stored gate passes and verdicts stay
 * valid across the change).
 */
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { test } from "node:test";
import { contentStamps, sha256Hex } from "../src/hooks/review/content-stamps.ts";
import { sha256HexOf } from "../src/hooks/review/sha256.ts";

const reference = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

test("every length across the padding boundaries, and random contents, hash as node:crypto does", () => {
  for (let length = 0; length <= 300; length++) {
    const bytes = randomBytes(length);
    assert.equal(sha256HexOf(bytes), reference(bytes), `length ${length}`);
  }
  for (const length of [1000, 4095, 4096, 4097, 20_000, 100_000]) {
    const bytes = randomBytes(length);
    assert.equal(sha256HexOf(bytes), reference(bytes), `length ${length}`);
    assert.equal(sha256Hex(bytes), reference(bytes), `sha256Hex, length ${length}`);
  }
  assert.equal(
    sha256HexOf(Buffer.alloc(0)),
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  );
  assert.equal(
    sha256HexOf(Buffer.from("abc")),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
});

test("strings hash as their UTF-8, lone surrogates included, as node:crypto's update(string) does", () => {
  for (const text of [
    "",
    "plain",
    "héllo wörld",
    "日本語のファイル.ts",
    "emoji 🧪",
    "lone \ud800 high",
    "lone \udc00 low",
  ])
    assert.equal(sha256Hex(text), reference(text), JSON.stringify(text));
});

test("content stamps are those of a node:crypto hash updated path by path", () => {
  const files = [
    { path: "src/b.ts", digest: "x1" },
    { path: "README.md", digest: "x2" },
    { path: "src/ä.ts", digest: "deleted" },
    { path: "docs/guide.md", digest: "folder" },
  ];
  const streamed = (paths: string[]) => {
    const hash = createHash("sha256");
    for (const path of paths) hash.update(`${path}\0${files.find((file) => file.path === path)?.digest}\n`);
    return hash.digest("hex").slice(0, 24);
  };
  const stamps = contentStamps(files);
  assert.equal(stamps.all, streamed([...files.map((file) => file.path)].sort()));
  assert.equal(stamps.code, streamed(["src/b.ts", "src/ä.ts"]));
});
