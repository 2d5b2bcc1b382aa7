/** The loops page's strip of iteration outcomes stays bounded however long a loop has run. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { outcomeStrip, stripLength } from "../src/server/dashboard/loops-page.ts";

test("a loop of 25 iterations: the latest 20 squares, numbered 6 to 25, after a link naming 5 earlier", async () => {
  const outcomes = Array.from({ length: 25 }, (_, index) => (index === 24 ? "verified" : "failed"));
  const markup = String(await outcomeStrip("loop-1", outcomes));
  const cells = [...markup.matchAll(/class="cell outcome-(\w+)" href="([^"]+)"[^>]*>(\d+)</g)];
  assert.equal(cells.length, stripLength);
  assert.deepEqual(
    cells.map((cell) => Number(cell[3])),
    Array.from({ length: 20 }, (_, index) => index + 6),
  );
  assert.equal(cells.at(-1)?.[1], "verified");
  assert.match(cells[0][2], /\/loops\/loop-1.*6/);
  assert.match(markup, /href="\/loops\/loop-1"[^>]*>5 earlier</);
});

test("a loop of 3 iterations: every square, no earlier link", async () => {
  const markup = String(await outcomeStrip("loop-2", ["failed", "failed", "running"]));
  assert.equal([...markup.matchAll(/class="cell /g)].length, 3);
  assert.doesNotMatch(markup, /earlier/);
});
