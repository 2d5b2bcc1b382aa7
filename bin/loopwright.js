#!/usr/bin/env node
// Launcher: answers --version without loading anything, then runs the TypeScript sources in a
// checkout (Node strips the types) or the compiled JavaScript in a published package.
import { existsSync, readFileSync } from "node:fs";

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  process.stdout.write(`${manifest.version}\n`);
  process.exit(0);
}
const [major] = process.versions.node.split(".").map(Number);
if (major < 24) {
  process.stderr.write(`loopwright needs Node.js 24 or newer (this is ${process.version}).\n`);
  process.exit(2);
}
const source = new URL("../src/cli/main.ts", import.meta.url);
const entry = existsSync(source) ? source : new URL("../dist/cli/main.js", import.meta.url);
const { main } = await import(entry.href);
process.exitCode = await main(argv);
