/**
 * The tag scan finds a tagged process wherever its tag sits in its environment (first, in the middle,
 * past 64 KiB of other variables) and by the value of that variable alone: a longer variable name
 * ending in the tag's name, or a value that only starts like the tag, is not a match.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { after, test } from "node:test";
import { findTaggedProcesses } from "../src/process/sweep.ts";

const variable = "LOOPWRIGHT_SWEEP_SCAN_TEST";
const children: ChildProcess[] = [];
after(() => {
  for (const child of children) child.kill("SIGKILL");
});

/** A sleeping process whose whole environment is `environment`, in this order. */
async function sleeper(environment: [string, string][]): Promise<number> {
  const child = spawn("/bin/sleep", ["30"], { env: Object.fromEntries(environment), stdio: "ignore" });
  children.push(child);
  await new Promise((resolve) => child.once("spawn", resolve));
  // Wait for the exec: until then /proc shows this process's environment.
  for (let attempt = 0; attempt < 200; attempt++) {
    if (findTaggedProcesses(variable, () => true).includes(child.pid as number)) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return child.pid as number;
}

test("finds the tag first, in the middle or far down the environment, by its value alone", {
  skip: process.platform !== "linux",
}, async () => {
  const big = "x".repeat(70 * 1024);
  const first = await sleeper([
    [variable, "run:first"],
    ["PATH", "/usr/bin"],
  ]);
  const middle = await sleeper([
    ["A", "1"],
    [variable, "run:middle"],
    ["B", "2"],
  ]);
  const far = await sleeper([
    ["BIG", big],
    ["BIGGER", big],
    [variable, "run:far"],
  ]);
  const lookalike = await sleeper([
    [`X${variable}`, "run:first"],
    ["OTHER", `${variable}=run:first`],
  ]);
  const prefixOnly = await sleeper([[variable, "run:first-but-longer"]]);
  const found = (value: string) => findTaggedProcesses(variable, (tag) => tag === value);
  assert.deepEqual(found("run:first"), [first]);
  assert.deepEqual(found("run:middle"), [middle]);
  assert.deepEqual(found("run:far"), [far]);
  assert.ok(!findTaggedProcesses(variable, () => true).includes(lookalike));
  assert.deepEqual(found("run:first-but-longer"), [prefixOnly]);
});
