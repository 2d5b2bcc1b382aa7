/**
 * The live output of a verdict whose `overall` disagrees with its rulings shows what loopwright derived,
 * not what the verifier claimed.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { progressPrinter } from "../src/cli/progress-printer.ts";
import { FakeLoop } from "./support/fake-loop.ts";

function printed(disagreement?: string): string {
  const loop = new FakeLoop().prepared().iteration().makerEnded().committed().screened().gatesPassed();
  loop.verifierEnded("ruled", {
    verdict: {
      overall: "pass",
      gates: [
        { id: "tests", passed: true, evidence: [{ file: "src/parse.ts" }] },
        { id: "lint", passed: disagreement === undefined, reason: "style", evidence: [] },
      ],
    },
    disagreement,
  });
  const lines: string[] = [];
  const print = progressPrinter((line) => lines.push(line));
  const event = loop.events.at(-1);
  if (event) print(event, loop.state());
  return lines.join("");
}

test("a verdict that said pass over a rejected required gate is printed as a rejection, with the disagreement", () => {
  assert.match(
    printed("its overall said pass, but it rejected gate lint"),
    /verifier: ✗ rejects \(its overall said pass, but it rejected gate lint\)/,
  );
  assert.match(printed(), /verifier: ✓ approves\n/);
});
