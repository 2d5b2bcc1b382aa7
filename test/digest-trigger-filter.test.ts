/**
 * The byte filter the digest skips noise with (`TriggerFilter`): its newline searches and counts, and
 * its trigger search, against plain JavaScript searches of the same text, at every alignment to its
 * 16-byte steps, across batches of candidates, and through the parser at the edges of its chunks.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { createDigestParser, digestText } from "../src/gates/digest/digest-parser.ts";
import { TriggerFilter } from "../src/gates/digest/trigger-filter.ts";
import { tablesFor } from "../src/gates/digest/trigger-filter-tables.ts";

const triggers = [
  "not ok",
  "=== ",
  "=== RUN",
  "FAIL",
  "TS1",
  "TS2",
  "__ ",
  "●",
  "<testsuite",
  "error:",
  "Error",
].map((trigger) => Buffer.from(trigger, "utf8").toString("latin1"));

/** Whether the filters made by `filterOf` use WebAssembly (else the plain JavaScript fallback). */
let webAssembly = true;

/** A filter holding `text` (Latin-1) at its start; returns the filter and the text's first address. */
function filterOf(text: string): { filter: TriggerFilter; start: number; end: number } {
  const filter = new TriggerFilter(triggers, 64 * 1024, { webAssembly });
  filter.bytes.write(text, filter.start, "latin1");
  return { filter, start: filter.start, end: filter.start + text.length };
}

/** Where a trigger starts first in `text` at or after `from` and before `to`, or -1 (a plain search). */
function firstTrigger(text: string, from: number, to: number): number {
  let first = -1;
  for (const trigger of triggers) {
    const index = text.indexOf(trigger, from);
    if (index !== -1 && index < to && (first === -1 || index < first)) first = index;
  }
  return first;
}

/** Noise full of near-misses of the triggers: their prefixes, other cases, the same first letters. */
function noise(length: number, seed: number): string {
  const words = [
    "no ok",
    "not o",
    "== ",
    "===",
    "FAI",
    "TS",
    "TS0",
    "_ ",
    "Test",
    "Tests",
    "<testcase",
    "error",
    "Erro",
  ];
  let text = "";
  let state = seed;
  while (text.length < length) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const pick = state % (words.length + 4);
    text += pick < words.length ? words[pick] : pick === words.length ? "\n" : " x";
  }
  return text.slice(0, length);
}

for (const variant of ["WebAssembly", "JavaScript"])
  describe(`TriggerFilter (${variant})`, () => {
    before(() => {
      webAssembly = variant === "WebAssembly";
    });

    it("counts and finds newlines like a plain search, at every alignment", () => {
      const text = noise(300, 7);
      const { filter, start } = filterOf(text);
      for (let from = 0; from <= text.length; from++) {
        for (let to = from; to <= Math.min(text.length, from + 70); to++) {
          const slice = text.slice(from, to);
          assert.equal(filter.countNewlines(start + from, start + to), slice.split("\n").length - 1);
          const after = slice.indexOf("\n");
          assert.equal(
            filter.newlineAfter(start + from, start + to),
            after === -1 ? -1 : start + from + after,
          );
          const before = slice.lastIndexOf("\n");
          assert.equal(
            filter.newlineBefore(start + from, start + to),
            before === -1 ? -1 : start + from + before,
          );
        }
      }
    });

    it("finds each trigger planted at every offset in noise of near-misses, and nothing else", () => {
      for (const trigger of triggers) {
        for (let offset = 0; offset < 40; offset++) {
          const text = `${noise(offset, offset)}${trigger}${noise(50, offset + 1)}`;
          const { filter, start, end } = filterOf(text);
          // Walk every trigger in order, as the parser does.
          const found: number[] = [];
          for (let from = start; ; ) {
            const next = filter.nextTrigger(from, end);
            if (next === -1) break;
            found.push(next - start);
            from = next + 1;
          }
          const expected: number[] = [];
          for (let index = firstTrigger(text, 0, text.length); index !== -1; ) {
            expected.push(index);
            index = firstTrigger(text, index + 1, text.length);
          }
          assert.ok(expected.includes(offset), `${JSON.stringify(trigger)} at ${offset}`);
          assert.deepEqual(found, expected, `${JSON.stringify(trigger)} at ${offset}`);
        }
      }
    });

    it("finds triggers past a full batch of candidates, with `to` cutting a trigger short", () => {
      // 10,000 candidates: more than a batch holds.
      const text = "FAIL x\n".repeat(10_000);
      const { filter, start, end } = filterOf(text);
      let count = 0;
      for (let from = start; ; count++) {
        const next = filter.nextTrigger(from, end);
        if (next === -1) break;
        assert.equal((next - start) % 7, 0);
        from = next + 1;
      }
      assert.equal(count, 10_000);
      // A trigger that starts before `to` is found even when it runs past it; one at `to` is not.
      filter.reset();
      assert.equal(filter.nextTrigger(start + 1, start + 8), start + 7);
      filter.reset();
      assert.equal(filter.nextTrigger(start + 1, start + 7), -1);
    });
  });

describe("digest parser over the filter's chunks", () => {
  it("numbers lines and runs right when plain go run lines fill batches and chunks", () => {
    const runs = Array.from({ length: 60_000 }, (_, index) => `=== RUN   TestCase${index}`);
    const text = [
      ...runs,
      "--- FAIL: TestCase59999 (0.00s)",
      "    case_test.go:3: broke",
      "FAIL\texample.com/cases\t0.1s",
      "",
    ].join("\n");
    const whole = digestText(text);
    assert.deepEqual(
      whole.failures.map((failure) => [failure.name, failure.logLine]),
      [["TestCase59999", 60_001]],
    );
    assert.equal(whole.lines, 60_003);
    // The same log in pieces that cut lines, the trigger and the chunk anywhere.
    for (const size of [1_000_003, 65_537, 4_099]) {
      const parser = createDigestParser();
      const bytes = Buffer.from(text);
      for (let offset = 0; offset < bytes.length; offset += size)
        parser.write(bytes.subarray(offset, offset + size));
      assert.deepEqual(parser.end(), whole, `pieces of ${size}`);
    }
  });
});

describe("the filter's tables", () => {
  it("hold at most 128 triggers (8 buckets of 16 checks): more is refused, never written past a bucket", () => {
    const triggers = (count: number) => Array.from({ length: count }, (_, index) => `trigger-${index}`);
    assert.ok(tablesFor(triggers(128)) instanceof Uint8Array);
    assert.throws(() => tablesFor(triggers(129)), /holds at most 128 triggers, not 129/);
  });
});
