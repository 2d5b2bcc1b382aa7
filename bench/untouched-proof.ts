/**
 * The untouched-checkout proof's own cost, in process: a checkout of ~900 tracked files (in ~70
 * folders; the proof leaves checkouts of more than 1000 to git), proved untouched as it is, and proved (failing) with an ignored
 * `node_modules` at its top as setup leaves it (remembered from the proof before, and new at each proof). Prints the median and the 90th percentile of each, in µs.
 * `node bench/untouched-proof.ts [files]`; run it from another checkout's bench/ to compare builds.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkOut, openLoopRepository } from "../src/git/loop-repository.ts";
import { untouchedCheckout } from "../src/git/untouched-checkout.ts";

const fileCount = Number(process.argv[2] ?? 900);
const rounds = 400;
const base = mkdtempSync(join(tmpdir(), "loopwright-proof-bench-"));
const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
const run = (args: string[], cwd: string) => execFileSync("git", args, { cwd, env, encoding: "utf8" }).trim();

try {
  const root = join(base, "repository");
  for (let index = 0; index < fileCount; index++) {
    const folder = join(root, "src", `area${index % 12}`, `module${index % 150}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `file${index}.ts`), `export const value${index} = ${index};\n`);
  }
  writeFileSync(join(root, ".gitignore"), "node_modules/\n");
  run(["init", "-q", "-b", "main"], root);
  run(["add", "--all"], root);
  run(["-c", "user.name=Bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "files"], root);
  const sha = run(["rev-parse", "HEAD"], root);
  const repository = await openLoopRepository(root, join(base, "private", "git"));
  const checkout = join(base, "gates");
  await checkOut(repository, checkout, "gates", sha, { detached: true });
  await checkOut(repository, checkout, "gates", sha, { detached: true });
  const indexFile = join(repository.directory, "gates.index");
  const measure = (label: string, expected: boolean, between = () => {}) => {
    const times: number[] = [];
    for (let round = 0; round < rounds; round++) {
      between();
      const started = process.hrtime.bigint();
      const proved = untouchedCheckout(checkout, indexFile, 20) !== undefined;
      times.push(Number(process.hrtime.bigint() - started) / 1000);
      if (proved !== expected) throw new Error(`${label}: proved ${proved}`);
    }
    times.sort((a, b) => a - b);
    const at = (share: number) => times[Math.floor(share * (times.length - 1))].toFixed(0);
    console.log(`${label.padEnd(44)} median ${at(0.5).padStart(6)} µs   p90 ${at(0.9).padStart(6)} µs`);
  };
  console.log(`${fileCount} tracked files, ${rounds} proofs each`);
  measure("untouched (proof holds)", true);
  mkdirSync(join(checkout, "node_modules", "left-pad"), { recursive: true });
  writeFileSync(join(checkout, "node_modules", "left-pad", "index.js"), "module.exports = 1;\n");
  measure("ignored node_modules at the top (fails)", false);
  // Another untracked name at each proof: a failure this process has not met (nothing remembered).
  let renamed = 0;
  measure("the same, its name new at each proof (fails)", false, () => {
    const from = join(checkout, renamed === 0 ? "node_modules" : `node_modules${renamed}`);
    renamed += 1;
    renameSync(from, join(checkout, `node_modules${renamed}`));
  });
} finally {
  rmSync(base, { recursive: true, force: true });
}
