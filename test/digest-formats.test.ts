import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { digestLog } from "../src/gates/digest/digest-log.ts";
import { createDigestParser, digestText } from "../src/gates/digest/digest-parser.ts";
import type { Digest, RunnerName } from "../src/gates/digest/digest-types.ts";

// Real logs, produced by running each tool on the projects in test/fixtures/digest/projects (see the
// README there); each golden file lists every failure's name, file:line anchors and log line.
const fixtures = new URL("./fixtures/digest/", import.meta.url).pathname;
const logNames = readdirSync(join(fixtures, "logs"))
  .filter((name) => name.endsWith(".txt"))
  .map((name) => name.slice(0, -".txt".length))
  .sort();
const root = "/project";

interface Golden {
  runners: RunnerName[];
  totalFailures: number;
  testsExecuted?: number;
  failures: { name: string; anchors: string[]; logLine: number; seed?: string }[];
}

function golden(name: string): Golden {
  return JSON.parse(readFileSync(join(fixtures, "golden", `${name}.golden.json`), "utf8"));
}

function logPath(name: string): string {
  return join(fixtures, "logs", `${name}.txt`);
}

/** The digest in the golden files' shape. */
function summary(digest: Digest): Golden {
  return {
    runners: digest.runners,
    totalFailures: digest.totalFailures,
    ...(digest.testsExecuted !== undefined ? { testsExecuted: digest.testsExecuted } : {}),
    failures: digest.failures.map((failure) => ({
      name: failure.name,
      anchors: failure.anchors.map((anchor) => `${anchor.file}:${anchor.line}`),
      logLine: failure.logLine,
      ...(failure.seed ? { seed: failure.seed } : {}),
    })),
  };
}

describe("failure digests of real runner logs", () => {
  for (const name of logNames) {
    it(`${name}: every failure's name, anchors and log line match the golden list`, async () => {
      const digest = await digestLog(logPath(name), { root });
      assert.deepEqual(summary(digest), golden(name));
      assert.equal(digest.logPath, logPath(name));
      assert.ok(digest.failures.length >= 3, "each fixture log holds at least three failures");
    });
  }

  it("covers every runner with at least one real log", () => {
    const covered = new Set(logNames.flatMap((name) => golden(name).runners));
    const runners: RunnerName[] = [
      "node-test",
      "vitest",
      "jest",
      "mocha",
      "pytest",
      "unittest",
      "go-test",
      "cargo-test",
      "junit-xml",
      "exunit",
      "rspec",
      "tsc",
      "eslint",
      "biome",
    ];
    assert.deepEqual(
      runners.filter((runner) => !covered.has(runner)),
      [],
    );
  });

  it("gives the same digest whatever the size of the pieces the log arrives in", async () => {
    for (const name of logNames) {
      const bytes = readFileSync(logPath(name));
      const expected = summary(await digestLog(logPath(name), { root }));
      for (const pieceSize of [1, 7, 4093]) {
        const parser = createDigestParser({ root });
        for (let start = 0; start < bytes.length; start += pieceSize) {
          parser.write(bytes.subarray(start, start + pieceSize));
        }
        assert.deepEqual(summary(parser.end()), expected, `${name} in pieces of ${pieceSize} bytes`);
      }
    }
  });

  it("reads a log that mixes runners, each failure at its own line", () => {
    const parts = ["jest", "pytest", "go-test", "tsc", "junit-node", "cargo-test"];
    let text = "";
    const expected: Golden["failures"] = [];
    for (const name of parts) {
      const offset = text.split("\n").length - 1;
      for (const failure of golden(name).failures)
        expected.push({ ...failure, logLine: failure.logLine + offset });
      const log = readFileSync(logPath(name), "utf8");
      text += log.endsWith("\n") ? log : `${log}\n`;
    }
    const digest = digestText(text, { root });
    assert.deepEqual([...digest.runners].sort(), [
      "cargo-test",
      "go-test",
      "jest",
      "junit-xml",
      "pytest",
      "tsc",
    ]);
    assert.deepEqual(summary(digest).failures, expected);
    assert.equal(
      digest.testsExecuted,
      parts.reduce((sum, name) => sum + (golden(name).testsExecuted ?? 0), 0),
    );
  });

  it("reads logs with Windows line endings like the originals", () => {
    for (const name of ["jest", "pytest", "rspec", "node-test-tap"]) {
      const text = readFileSync(logPath(name), "utf8").replace(/\n/g, "\r\n");
      assert.deepEqual(summary(digestText(text, { root })), golden(name), name);
    }
  });
});
