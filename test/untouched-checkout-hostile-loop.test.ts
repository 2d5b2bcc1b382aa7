/**
 * Hostile review of untouched-checkout.ts through the real loop: a gate that tries to leave its checkout
 * changed in a way the proof could miss, then fails (a red gate is rechecked on the same commit). Every
 * run of the gate records what it saw (types, modes, bytes, link targets, xattrs of everything but .git)
 * before attacking; each must be exactly the commit's files.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createSandbox, type Sandbox } from "./support/loop-sandbox.ts";
import { eventsIn } from "./support/loop-timeline.ts";

const stateScript = `import hashlib, os, stat, sys
out = []
for top, dirs, files in os.walk(".", followlinks=False):
    if top == ".": dirs[:] = [d for d in dirs if d != ".git"]; files = [f for f in files if f != ".git"]
    for name in sorted(dirs + files):
        p = os.path.join(top, name); s = os.lstat(p); mode = 'x' if s.st_mode & 0o100 else '-'
        xattrs = ",".join(sorted(os.listxattr(p, follow_symlinks=False))) if not stat.S_ISLNK(s.st_mode) else ""
        if stat.S_ISLNK(s.st_mode): out.append(f"L {p} -> {os.readlink(p)}")
        elif stat.S_ISDIR(s.st_mode): out.append(f"D {p} {xattrs}")
        elif stat.S_ISREG(s.st_mode): out.append(f"F {p} {mode} {xattrs} {hashlib.sha256(open(p,'rb').read()).hexdigest()[:16]}")
        else: out.append(f"O {p} {stat.S_IFMT(s.st_mode)}")
print("\\n".join(sorted(out)))
`;

const gateScript = `n=$(cat "$GATE_LOG.n" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$GATE_LOG.n"
python3 "$STATE_SCRIPT" > "$GATE_LOG.$n"
. "$ATTACK_SCRIPT"
exit 1
`;

/** Each attack runs in the gates' checkout (cwd), as a sourced sh script; $SCRATCH is a folder outside it. */
const attacks: Record<string, string> = {
  "same-size edit, times put back (touch -r)": `cp -p a.txt "$SCRATCH/ref"; printf 'ONE\\ntwo\\n' > a.txt; touch -r "$SCRATCH/ref" a.txt`,
  "write through a hard link it made, times put back": `cp -p a.txt "$SCRATCH/ref"; ln -f a.txt "$SCRATCH/h"; printf 'ONE\\ntwo\\n' > "$SCRATCH/h"; touch -r "$SCRATCH/ref" a.txt; rm "$SCRATCH/h"`,
  "mmap'd write, times put back": `cp -p a.txt "$SCRATCH/ref"; python3 -c 'import mmap,os;fd=os.open("a.txt",os.O_RDWR);m=mmap.mmap(fd,0);m[0:3]=b"ONE";m.close()'; touch -r "$SCRATCH/ref" a.txt`,
  "background process (kept tags) writing after the gate ended": `(setsid sh -c 'sleep 0.4; printf "ONE\\ntwo\\n" > a.txt' </dev/null >/dev/null 2>&1 &)`,
  "a file .git/info/exclude hides": `mkdir -p .git/info; echo planted >> .git/info/exclude; echo x > planted`,
  "a file under a folder named like git internals": `mkdir -p src/objects/info src/.git/refs; echo x > src/objects/info/alternates; echo x > src/.git/HEAD`,
  "case-only rename of a tracked file": `mv a.txt A.txt`,
  "case-only twin of a tracked file": `cp -p a.txt A.txt`,
  "empty folder": `mkdir src/empty`,
  FIFO: `mkfifo src/fifo`,
  socket: `python3 -c 'import socket;s=socket.socket(socket.AF_UNIX);s.bind("src/sock")'`,
  "device node": `mknod src/null c 1 3 2>/dev/null || mkfifo src/null`,
  "symlink swapped for one with the same target": `rm link; ln -s a.txt link`,
  "symlink swapped for a file holding its target text": `rm link; printf a.txt > link`,
  "chmod and back": `chmod +x a.txt; chmod -x a.txt; chmod -x run.sh; chmod +x run.sh`,
  "xattr set and removed": `python3 -c 'import os;os.setxattr("a.txt","user.hostile",b"1");os.removexattr("a.txt","user.hostile")'`,
  "private index refreshed over an edit": `cp -p a.txt "$SCRATCH/ref"; printf 'ONE\\ntwo\\n' > a.txt; touch -r "$SCRATCH/ref" a.txt; for i in $(find "$LOOPWRIGHT_HOME" -name 'gates.index'); do GIT_INDEX_FILE=$i GIT_DIR=$(dirname $i) GIT_WORK_TREE=$PWD git update-index -q --refresh >/dev/null 2>&1; done`,
};

const files = {
  "README.md": "# repo\n",
  ".gitignore": "node_modules/\n",
  "a.txt": "one\ntwo\n",
  "run.sh": "echo run\n",
  "src/b.txt": "b\n",
};

/** What the state script prints for `sha`'s files, checked out afresh. */
function expectedState(sandbox: Sandbox, sha: string, scratch: string): string {
  const folder = join(scratch, `fresh-${sha}`);
  execFileSync("sh", ["-c", `mkdir -p "${folder}" && git archive ${sha} | tar -x -C "${folder}"`], {
    cwd: sandbox.repo,
  });
  return execFileSync("python3", [join(sandbox.root, "state.py")], { cwd: folder }).toString();
}

describe("a red gate's recheck and the next commit's checkout, after a hostile gate", () => {
  for (const [what, attack] of Object.entries(attacks)) {
    it(`every gate run sees exactly its commit's files: ${what}`, async (t) => {
      const sandbox = await createSandbox(files);
      t.after(() => sandbox.cleanup());
      execFileSync("chmod", ["+x", join(sandbox.repo, "run.sh")]);
      execFileSync("ln", ["-s", "a.txt", join(sandbox.repo, "link")]);
      await sandbox.git("add", "-A");
      await sandbox.git("commit", "-q", "-m", "link and mode");
      const scratch = await mkdtemp(join(sandbox.root, "scratch-"));
      await writeFile(join(sandbox.root, "state.py"), stateScript);
      await writeFile(join(sandbox.root, "gate.sh"), gateScript);
      await writeFile(join(sandbox.root, "attack.sh"), `${attack}\n`);
      const spec = await sandbox.spec(`name: hostile
goal: Never reached.
repo: ./repo
maker:
  engine: scripted
  turns:
    - write: { m.txt: "iteration {{iteration}}\\n" }
gates:
  - { id: red, kind: tests-pass, run: "sh ${join(sandbox.root, "gate.sh")}" }
budget: { maxIterations: 2 }
`);
      const gateLog = join(sandbox.root, "gate-log");
      const run = await sandbox.cli(["run", spec, "--json"], {
        env: {
          GATE_LOG: gateLog,
          STATE_SCRIPT: join(sandbox.root, "state.py"),
          ATTACK_SCRIPT: join(sandbox.root, "attack.sh"),
          SCRATCH: scratch,
        },
        timeoutMs: 180_000,
      });
      assert.equal(run.code, 3, run.stderr);
      const started = eventsIn<{ type: string; data: { sha: string; phase: string } }>(run.stdout).filter(
        (event) => event.type === "gate_started",
      );
      assert.ok(started.length >= 4, `gate runs: ${started.length}`);
      for (const [at, event] of started.entries()) {
        const seen = await readFile(`${gateLog}.${at + 1}`, "utf8");
        assert.equal(
          seen,
          expectedState(sandbox, event.data.sha, scratch),
          `run ${at + 1} (${event.data.phase} of ${event.data.sha.slice(0, 8)})`,
        );
      }
    });
  }
});

describe("the maker's pre-turn listing, after a gate edited the maker's checkout", () => {
  const edits: Record<string, string> = {
    "same-size edit, times put back": `cp -p "$M/a.txt" "$SCRATCH/ref"; printf 'ONE\\ntwo\\n' > "$M/a.txt"; touch -r "$SCRATCH/ref" "$M/a.txt"`,
    "mmap'd write of the maker's own file, times put back": `cp -p "$M/m.txt" "$SCRATCH/ref"; python3 -c 'import mmap,os,sys;fd=os.open(sys.argv[1],os.O_RDWR);m=mmap.mmap(fd,0);m[0:4]=b"ITER";m.close()' "$M/m.txt"; touch -r "$SCRATCH/ref" "$M/m.txt"`,
    "an empty folder": `mkdir "$M/src/empty"`,
  };
  for (const [what, edit] of Object.entries(edits)) {
    it(`the maker's next turn starts from its start commit's files, the edit kept under a ref: ${what}`, async (t) => {
      const sandbox = await createSandbox(files);
      t.after(() => sandbox.cleanup());
      const scratch = await mkdtemp(join(sandbox.root, "scratch-"));
      await writeFile(join(sandbox.root, "state.py"), stateScript);
      await writeFile(
        join(sandbox.root, "maker.sh"),
        `python3 "$STATE_SCRIPT" > "$MAKER_LOG.$LOOPWRIGHT_ITERATION"; echo "$PWD" > "$MAKER_PWD"; printf 'iteration %s\\n' "$LOOPWRIGHT_ITERATION" > m.txt\n`,
      );
      await writeFile(
        join(sandbox.root, "gate.sh"),
        `if [ -s "$MAKER_PWD" ] && [ ! -e "$SCRATCH/done" ]; then M=$(cat "$MAKER_PWD"); ${edit}; touch "$SCRATCH/done"; fi\nexit 1\n`,
      );
      const spec = await sandbox.spec(`name: hostile-maker
goal: Never reached.
repo: ./repo
maker: { engine: command, run: "sh ${join(sandbox.root, "maker.sh")}" }
verifier: { engine: scripted, turns: [{ verdict: auto }] }
gates:
  - { id: red, kind: tests-pass, run: "sh ${join(sandbox.root, "gate.sh")}" }
budget: { maxIterations: 2 }
`);
      const makerLog = join(sandbox.root, "maker-log");
      const run = await sandbox.cli(["run", spec, "--json"], {
        env: {
          MAKER_LOG: makerLog,
          MAKER_PWD: join(sandbox.root, "maker-pwd"),
          STATE_SCRIPT: join(sandbox.root, "state.py"),
          SCRATCH: scratch,
        },
        timeoutMs: 180_000,
      });
      assert.equal(run.code, 3, run.stderr);
      const events = eventsIn<{ type: string; data: Record<string, unknown> }>(run.stdout);
      const starts = events.filter((event) => event.type === "iteration_started");
      assert.equal(starts.length, 2);
      const secondStart = String(starts[1].data.startSha);
      assert.equal(
        await readFile(`${makerLog}.2`, "utf8"),
        expectedState(sandbox, secondStart, scratch),
        "the maker's second turn began on its start commit's files",
      );
      if (what === "an empty folder") return;
      const kept = await sandbox.git("for-each-ref", "--format=%(refname)", "refs/loopwright/");
      assert.match(kept, /interrupted-2-/, "what the gate left in the maker's checkout is kept under a ref");
    });
  }
});
