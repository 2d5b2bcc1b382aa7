import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { findAnchors } from "../src/gates/digest/anchors.ts";
import { digestLog } from "../src/gates/digest/digest-log.ts";
import { createDigestParser, digestText } from "../src/gates/digest/digest-parser.ts";

const execFileAsync = promisify(execFile);

/** One jest failure block; `extra` lines go into its message. */
function jestFailure(name: string, line: number, extra: string[] = []): string {
  return [
    `  ● ${name}`,
    "",
    "    expect(received).toBe(expected)",
    ...extra.map((text) => `    ${text}`),
    "",
    `      at Object.toBe (src/cart.test.js:${line}:5)`,
    "",
  ].join("\n");
}

describe("digest parser", () => {
  it("falls back to FAIL/Error/failed lines with context when no runner is recognized", () => {
    const digest = digestText(
      [
        "$ make build",
        "cc -o app main.c",
        "main.c:12:5: error: 'count' undeclared (first use in this function)",
        "make: *** [Makefile:4: app] Error 1",
        "ERROR: coverage for lines (81%) does not meet global threshold (90%)",
        "done",
      ].join("\n"),
    );
    assert.deepEqual(digest.runners, ["generic"]);
    assert.equal(digest.totalFailures, 1, "nearby hits join one failure");
    const [failure] = digest.failures;
    assert.equal(failure.logLine, 3);
    assert.equal(failure.name, "main.c:12:5: error: 'count' undeclared (first use in this function)");
    assert.deepEqual(failure.anchors, [{ file: "main.c", line: 12 }], "a path needs an extension");
    assert.match(failure.message, /cc -o app main\.c\n.*\n.*Error 1\nERROR: coverage/);
  });

  it("drops the fallback's guesses once a runner's failure is known", () => {
    const digest = digestText(
      ["make: *** [Makefile:4: app] Error 1", "FAIL src/cart.test.js", jestFailure("cart › sums", 14)].join(
        "\n",
      ),
    );
    assert.deepEqual(digest.runners, ["jest"]);
    assert.deepEqual(
      digest.failures.map((failure) => failure.name),
      ["cart > sums"],
    );
  });

  it("bounds a failure's message, stack and anchors however long its report", () => {
    const diff = Array.from({ length: 5000 }, (_, index) => `- expected line ${index} ${"x".repeat(200)}`);
    const digest = digestText(
      ["FAIL src/cart.test.js", jestFailure("cart › huge diff", 14, diff)].join("\n"),
    );
    const [failure] = digest.failures;
    assert.equal(failure.name, "cart > huge diff");
    assert.ok(failure.message.split("\n").length <= 40, `${failure.message.split("\n").length} lines`);
    assert.ok(failure.message.length <= 4000, `${failure.message.length} characters`);
    assert.ok(failure.stack.length <= 6);
  });

  it("keeps names and anchors of the first failures up to the limits, and counts the rest", () => {
    const blocks = Array.from({ length: 50 }, (_, index) =>
      jestFailure(`suite › case ${index + 1}`, index + 1),
    );
    const digest = digestText(["FAIL src/cart.test.js", ...blocks].join("\n"), {
      limits: { maxFailures: 10, detailedFailures: 3 },
    });
    assert.equal(digest.totalFailures, 50);
    assert.equal(digest.failures.length, 10);
    assert.deepEqual(digest.failures[9].anchors, [{ file: "src/cart.test.js", line: 10 }]);
    assert.equal(digest.failures[2].stack.length, 1);
    assert.equal(digest.failures[3].stack.length, 0, "past detailedFailures only the first message line");
    assert.equal(digest.failures[3].message, "expect(received).toBe(expected)");
  });

  it("counts a failure reported twice (section and summary) once, also past the kept limit", () => {
    const lines = ["=================================== FAILURES ==================================="];
    for (let index = 0; index < 30; index++) {
      lines.push(`___________ test_${index} ___________`, "", `E   assert ${index} == 0`, "");
      lines.push(`tests/test_a.py:${index + 1}: AssertionError`);
    }
    lines.push("=========================== short test summary info ============================");
    for (let index = 0; index < 30; index++)
      lines.push(`FAILED tests/test_a.py::test_${index} - assert ${index} == 0`);
    lines.push("============================== 30 failed in 0.12s ==============================");
    const digest = digestText(lines.join("\n"), { limits: { maxFailures: 10 } });
    assert.equal(digest.totalFailures, 30);
    assert.equal(digest.testsExecuted, 30);
    assert.equal(digest.failures.length, 10);
    assert.equal(digest.failures[9].name, "tests/test_a.py::test_9");
    assert.deepEqual(digest.failures[9].anchors, [{ file: "tests/test_a.py", line: 10 }]);
  });

  it("counts lines right across very long lines, pieces that split characters, and a missing final newline", () => {
    const longLine = `noise ${"é".repeat(300_000)}`; // 600 KB of two-byte characters, no trigger.
    const text = [
      "FAIL src/cart.test.js",
      longLine,
      "PASS",
      `${longLine} FAIL`,
      jestFailure("cart › after", 7),
    ]
      .join("\n")
      .trimEnd();
    const bytes = Buffer.from(text, "utf8");
    const parser = createDigestParser();
    for (let start = 0; start < bytes.length; start += 9999)
      parser.write(bytes.subarray(start, start + 9999));
    const digest = parser.end();
    assert.equal(digest.lines, 9);
    assert.deepEqual(
      digest.failures.map((failure) => [failure.name, failure.logLine, failure.anchors[0]?.line]),
      [["cart > after", 5, 7]],
    );
  });

  it("reads go's === RUN lines counted in bulk as it would one by one, whatever the pieces", () => {
    // Plain run lines between results are counted, not offered; a colored one, one ending in a
    // carriage return and one holding another trigger (FAIL) are offered: all count, and the output
    // after the last run line of a bulk belongs to that test.
    const log = [
      "=== RUN   TestA",
      "--- PASS: TestA (0.00s)",
      "=== RUN   TestB",
      "    b_test.go:10: want 1, got 2",
      "--- FAIL: TestB (0.00s)",
      "=== RUN   TestC",
      "=== RUN   TestFAILED_D",
      "\x1b[1m=== RUN   TestE\x1b[0m",
      "=== RUN   TestF\r",
      "=== RUN   TestG",
      "    g_test.go:5: boom",
      "--- FAIL: TestG (0.00s)",
      "=== RUN   TestH",
      "--- SKIP: TestH (0.00s)",
      "FAIL",
    ].join("\n");
    const whole = digestText(log);
    assert.deepEqual(
      whole.failures.map((failure) => [failure.name, failure.message, failure.logLine]),
      [
        ["TestB", "b_test.go:10: want 1, got 2", 5],
        ["TestG", "g_test.go:5: boom", 12],
      ],
    );
    assert.equal(whole.testsExecuted, 7, "eight runs, one skipped");
    assert.equal(whole.lines, 15);
    for (const size of [1, 3, 17]) {
      const parser = createDigestParser();
      for (let start = 0; start < log.length; start += size) parser.write(log.slice(start, start + size));
      assert.deepEqual(parser.end(), whole, `pieces of ${size}`);
    }
  });

  it("reads lines as they were last drawn: ANSI colors and carriage-return redraws removed", () => {
    const digest = digestText(
      [
        "\x1b[0m\x1b[7m\x1b[1m\x1b[31m FAIL \x1b[39m\x1b[22m\x1b[27m\x1b[0m src/cart.test.js",
        "running 10%\rrunning 50%\r  \x1b[1m\x1b[31m● cart › colors\x1b[39m\x1b[22m",
        "",
        "    \x1b[2mexpect(\x1b[22m\x1b[31mreceived\x1b[39m\x1b[2m).toBe(\x1b[22m\x1b[32mexpected\x1b[39m\x1b[2m)\x1b[22m",
        "",
        "      \x1b[2mat Object.toBe (\x1b[22m\x1b[2m\x1b[0m\x1b[36msrc/cart.test.js\x1b[39m\x1b[0m\x1b[2m:3:5)\x1b[22m",
        "",
      ].join("\r\n"),
    );
    assert.equal(digest.failures[0].name, "cart > colors");
    assert.equal(digest.failures[0].message, "expect(received).toBe(expected)");
    assert.deepEqual(digest.failures[0].anchors, [{ file: "src/cart.test.js", line: 3 }]);
  });

  it("streams a log larger than its read size and finds failures at the start, middle and end", async () => {
    const folder = await mkdtemp(join(tmpdir(), "loopwright-digest-parser-"));
    try {
      const filler = Array.from({ length: 40_000 }, (_, index) => `[info] request ${index} served in 3 ms`);
      const lines = [
        "--- FAIL: TestFirst (0.00s)",
        "    first_test.go:3: first",
        ...filler,
        "--- FAIL: TestMiddle (0.00s)",
        "    middle_test.go:5: middle",
        ...filler,
        "--- FAIL: TestLast (0.00s)",
        "    last_test.go:8: last",
        "FAIL\texample.com/app\t0.1s",
      ];
      const path = join(folder, "go.log");
      await writeFile(path, `${lines.join("\n")}\n`);
      const digest = await digestLog(path);
      assert.deepEqual(
        digest.failures.map((failure) => [failure.name, failure.logLine, failure.anchors[0]?.file]),
        [
          ["TestFirst", 1, "first_test.go"],
          ["TestMiddle", 40_003, "middle_test.go"],
          ["TestLast", 80_005, "last_test.go"],
        ],
      );
      assert.equal(digest.lines, 80_007);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe("digest parsers one after another", () => {
  it("read nothing the parser before left in the filter's memory", () => {
    // The second log is the first cut short inside a TAP failure line: the bytes after its end are the
    // first log's (the ended parser's filter is reused), and must not complete that line.
    const whole = ["TAP version 13", "ok 1 - setup", "not ok 2 - boom", "1..2", ""].join("\n");
    const cut = whole.slice(0, whole.indexOf("not ok") + "not o".length);
    const before = digestText(cut);
    const full = digestText(whole);
    assert.equal(full.totalFailures, 1);
    assert.deepEqual(digestText(cut), before);
    const bytes = createDigestParser();
    bytes.write(Buffer.from(whole));
    assert.deepEqual(bytes.end(), full, "a piece of bytes digests as the same text");
    const parsed = createDigestParser();
    parsed.write(Buffer.from(cut));
    assert.deepEqual(parsed.end(), before);
  });

  it("each have their own memory while they read logs at the same time", async () => {
    // digestLog reads a log into the parser's memory while the parser scans the piece before: two logs
    // of several pieces digested at once would mix if their parsers shared it.
    const folder = await mkdtemp(join(tmpdir(), "loopwright-digest-parsers-"));
    try {
      const log = (name: string) =>
        [
          ...Array.from({ length: 60_000 }, (_, index) => `[${name}] step ${index} done`),
          `--- FAIL: Test${name} (0.00s)`,
          `    ${name}_test.go:7: broken`,
          "FAIL\texample.com/app\t0.1s",
          "",
        ].join("\n");
      const paths = [join(folder, "first.log"), join(folder, "second.log")];
      await writeFile(paths[0], log("First"));
      await writeFile(paths[1], log("Second"));
      const alone = [await digestLog(paths[0]), await digestLog(paths[1])];
      createDigestParser().end(); // An idle pair of searches for the first of the two below.
      const together = await Promise.all(paths.map((path) => digestLog(path)));
      assert.deepEqual(together, alone);
      assert.deepEqual(
        together.map((digest) => digest.failures.map((failure) => failure.name)),
        [["TestFirst"], ["TestSecond"]],
      );
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it("digests a log the same after the process warmed its searches: nothing of the warming is left in them", async () => {
    // Fresh processes: the searches are warmed once per process, and this one has digested logs already.
    const folder = await mkdtemp(join(tmpdir(), "loopwright-digest-warm-"));
    try {
      const path = join(folder, "gate.log");
      await writeFile(path, "ok\n--- FAIL: TestCart (0.00s)\n    cart_test.go:9: short\nFAIL\n");
      const parser = new URL("../src/gates/digest/digest-parser.ts", import.meta.url).href;
      const reader = new URL("../src/gates/digest/digest-log.ts", import.meta.url).href;
      const digestIn = async (warm: boolean) => {
        const script = [
          `const { warmDigestSearches } = await import(${JSON.stringify(parser)});`,
          `const { digestLog } = await import(${JSON.stringify(reader)});`,
          warm ? "warmDigestSearches(); warmDigestSearches();" : "",
          `process.stdout.write(JSON.stringify(await digestLog(${JSON.stringify(path)})));`,
        ].join("\n");
        const { stdout } = await execFileAsync(process.execPath, ["--input-type=module", "-e", script]);
        return JSON.parse(stdout);
      };
      const [cold, warmed] = await Promise.all([digestIn(false), digestIn(true)]);
      assert.deepEqual(warmed, cold);
      assert.deepEqual(
        warmed.failures.map((failure: { name: string }) => failure.name),
        ["TestCart"],
      );
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it("refuses to be written or ended again once it has ended (its filter is another's by then)", () => {
    const parser = createDigestParser();
    parser.write("ok 1\n");
    parser.end();
    assert.throws(() => parser.write("not ok 2\n"), /has ended/);
    assert.throws(() => parser.end(), /has ended/);
  });
});

describe("findAnchors", () => {
  it("makes paths under the root relative and drops runtime and dependency frames", () => {
    const root = "/home/dev/repo";
    assert.deepEqual(findAnchors("    at add (file:///home/dev/repo/src/math.ts:12:7)", root), [
      { file: "src/math.ts", line: 12 },
    ]);
    assert.deepEqual(findAnchors("    at Test.run (node:internal/test_runner/test:1402:25)", root), []);
    assert.deepEqual(findAnchors("    at x (/home/dev/repo/node_modules/lib/index.js:1:1)", root), []);
    assert.deepEqual(findAnchors('  File "/home/dev/repo/tests/test_a.py", line 28, in test_a', root), [
      { file: "tests/test_a.py", line: 28 },
    ]);
    assert.deepEqual(findAnchors('  File "/usr/lib/python3.11/unittest/case.py", line 57, in x', root), []);
    assert.deepEqual(findAnchors("src/cart.ts(16,33): error TS2322: nope", root), [
      { file: "src/cart.ts", line: 16 },
    ]);
    assert.deepEqual(findAnchors("      at ./src/lib.rs:70:13", root), [{ file: "src/lib.rs", line: 70 }]);
    assert.deepEqual(findAnchors("[2024-05-01T12:00:07Z] took 12:30 at http://example.com:8080/a", root), []);
  });
});
