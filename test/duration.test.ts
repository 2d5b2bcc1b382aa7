import assert from "node:assert/strict";
import { test } from "node:test";
import { formatDuration, parseDuration } from "../src/core/duration.ts";

test("durations parse to milliseconds: units, plain seconds, decimals, and 0 for no limit", () => {
  const cases: [string | number, number][] = [
    ["30s", 30_000],
    ["10m", 600_000],
    ["2h", 7_200_000],
    ["500ms", 500],
    ["1.5m", 90_000],
    [" 10 m ", 600_000],
    ["45", 45_000],
    [45, 45_000],
    [0.25, 250],
    ["0", 0],
    [0, 0],
  ];
  for (const [text, milliseconds] of cases) assert.equal(parseDuration(text), milliseconds, String(text));
});

test("anything else is not a duration", () => {
  for (const text of ["", "ten minutes", "10x", "-5s", "10m30s", "1e3", "m", "10M"]) {
    assert.equal(parseDuration(text), undefined, JSON.stringify(text));
  }
  for (const value of [-1, Number.NaN, Number.POSITIVE_INFINITY])
    assert.equal(parseDuration(value), undefined);
});

test("durations format the way a person reads them", () => {
  const cases: [number, string][] = [
    [0, "0ms"],
    [850, "850ms"],
    [1000, "1.0s"],
    [12_345, "12.3s"],
    [60_000, "1m00s"],
    [245_000, "4m05s"],
    [3_600_000, "1h00m"],
    [3_720_000, "1h02m"],
    [90_000_000, "25h00m"],
  ];
  for (const [milliseconds, text] of cases)
    assert.equal(formatDuration(milliseconds), text, String(milliseconds));
});

test("values just under a unit boundary round into the next unit, not past it", () => {
  assert.equal(formatDuration(999.7), "1.0s");
  assert.equal(formatDuration(59_970), "1m00s");
  assert.equal(formatDuration(3_599_800), "1h00m");
});
