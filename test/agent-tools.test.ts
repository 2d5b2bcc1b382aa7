/**
 * The built-in agent's tools on a real folder, called as the loop calls them (runToolCall: schema check,
 * the tool, truncation): confinement to the worktree with symlinks, exact edits, line ranges, output
 * truncation with a way to read on, the shell tool's process-tree kill, and the read-only command tool.
 */
import assert from "node:assert/strict";
import { mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Workspace as AgentWorkspace } from "../src/agent/agent-types.ts";
import { runToolCall } from "../src/agent/tools/run-tool-call.ts";
import { fullTools, readOnlyTools } from "../src/agent/tools/tool-sets.ts";
import { findTaggedProcesses, stepTagVariable } from "../src/process/sweep.ts";
import { createWorkspace, type Workspace } from "./support/agent-harness.ts";

let workspace: Workspace;
let agentWorkspace: AgentWorkspace;
let calls = 0;
const limits = { maxChars: 2000, maxLines: 50 };

before(async () => {
  workspace = await createWorkspace({
    "src/app.ts": "const a = 1;\nconst b = 2;\nconst a2 = 1;\n",
    "src/deep/util.ts": "export const twice = (n: number) => n * 2;\n",
    "long.txt": Array.from({ length: 300 }, (_, index) => `line ${index + 1}`).join("\n"),
    "notes.md": "# Notes\nTODO: twice\n",
  });
  await writeFile(join(workspace.scratch, "..", "secret.txt"), "top secret\n");
  await mkdir(join(workspace.scratch, "..", "elsewhere"));
  await symlink(join(workspace.scratch, "..", "secret.txt"), join(workspace.root, "secret-link"));
  await symlink(join(workspace.scratch, "..", "elsewhere"), join(workspace.root, "dir-link"));
  await symlink(join(workspace.root, "notes.md"), join(workspace.root, "notes-link"));
  agentWorkspace = { root: workspace.root, readable: [], scratch: workspace.scratch };
});
after(() => workspace.cleanup());

function call(name: string, input: unknown, options: { readOnly?: boolean; signal?: AbortSignal } = {}) {
  calls += 1;
  return runToolCall(
    { id: `call-${calls}`, name, input },
    options.readOnly ? readOnlyTools : fullTools,
    {
      workspace: agentWorkspace,
      signal: options.signal ?? new AbortController().signal,
      runId: "tools-test",
      stepId: `tool-${calls}`,
    },
    limits,
  );
}

describe("paths stay inside the worktree", () => {
  it("refuses ../ and absolute paths outside, for reading and writing", async () => {
    for (const [name, input] of [
      ["read", { path: "../../etc/passwd" }],
      ["read", { path: "/etc/hostname" }],
      ["write", { path: "../escaped.txt", content: "x" }],
      ["list", { path: ".." }],
      ["grep", { pattern: "root", path: "/etc" }],
      ["glob", { pattern: "*", path: "../" }],
    ] as const) {
      const result = await call(name, input);
      assert.equal(result.ok, false, `${name} ${JSON.stringify(input)}`);
      assert.match(result.text, /is outside the working directory .*refused/);
    }
  });

  it("refuses symlinks that lead out, to a file or through a folder, even for a file not yet there", async () => {
    const reads = await call("read", { path: "secret-link" });
    assert.equal(reads.ok, false);
    assert.match(reads.text, /secret-link leads outside the working directory .* through a symbolic link/);
    const writes = await call("write", { path: "dir-link/new/planted.txt", content: "x" });
    assert.equal(writes.ok, false);
    assert.match(writes.text, /through a symbolic link/);
    const edits = await call("edit", { path: "secret-link", old_string: "top", new_string: "no" });
    assert.equal(edits.ok, false);
    assert.equal(await readFile(join(workspace.scratch, "..", "secret.txt"), "utf8"), "top secret\n");
  });

  it("refuses writing through a dangling symlink or a symlinked folder that leads out", async () => {
    const outside = join(workspace.scratch, "..", "dangling-target.txt");
    const outsideFolder = join(workspace.scratch, "..", "not-yet");
    const links = ["dangling-link", "dangling-folder", "src/relative-dangling"].map((path) =>
      join(workspace.root, path),
    );
    await symlink(outside, links[0]);
    await symlink(outsideFolder, links[1]);
    await symlink("../dangling-link", links[2]);
    try {
      for (const path of ["dangling-link", "dangling-folder/new.txt", "src/relative-dangling"]) {
        const result = await call("write", { path, content: "planted" });
        assert.equal(result.ok, false, path);
        assert.match(result.text, /through a symbolic link/, path);
      }
      await assert.rejects(readFile(outside), /ENOENT/);
      await assert.rejects(readFile(join(outsideFolder, "new.txt")), /ENOENT/);
    } finally {
      await Promise.all(links.map((link) => rm(link, { force: true })));
    }
  });

  it("follows a symlink that stays inside", async () => {
    const result = await call("read", { path: "notes-link" });
    assert.equal(result.ok, true);
    assert.match(result.text, /TODO: twice/);
  });
});

describe("read, write, edit", () => {
  it("reads a line range, numbered", async () => {
    const result = await call("read", { path: "long.txt", offset: 10, limit: 3 });
    assert.equal(result.text, "10\tline 10\n11\tline 11\n12\tline 12\n[lines 10-12 of 300]");
  });

  it("cuts a long output in one place, saying what was cut and which offset reads on", async () => {
    const first = await call("read", { path: "long.txt" });
    assert.match(first.text, /^1\tline 1\n/);
    assert.match(
      first.text,
      /\[output truncated: showing lines 1-50 of 300, \d+ characters cut\. Call read with path "long\.txt" and offset 51 to read on\.\]$/,
    );
    const next = await call("read", { path: "long.txt", offset: 51 });
    assert.match(next.text, /^51\tline 51\n/, "the offset the note named reads on");
  });

  it("writes a new file, creating its folders", async () => {
    const result = await call("write", { path: "out/nested/new.txt", content: "one\ntwo\n" });
    assert.equal(result.ok, true);
    assert.match(result.text, /Created out\/nested\/new\.txt \(2 lines/);
    assert.equal(await readFile(join(workspace.root, "out/nested/new.txt"), "utf8"), "one\ntwo\n");
  });

  it("edits only an exact, unique match, and says where the others are", async () => {
    const ambiguous = await call("edit", { path: "src/app.ts", old_string: "= 1;", new_string: "= 10;" });
    assert.equal(ambiguous.ok, false);
    assert.match(ambiguous.text, /occurs 2 times in src\/app\.ts \(lines 1, 3\)/);
    const missing = await call("edit", { path: "src/app.ts", old_string: "const c = 3;", new_string: "x" });
    assert.match(missing.text, /old_string was not found in src\/app\.ts/);
    const unique = await call("edit", {
      path: "src/app.ts",
      old_string: "const a = 1;",
      new_string: "const a = 10;",
    });
    assert.equal(unique.ok, true, unique.text);
    const all = await call("edit", {
      path: "src/app.ts",
      old_string: "const",
      new_string: "let",
      replace_all: true,
    });
    assert.match(all.text, /Replaced 3 occurrences/);
    assert.equal(
      await readFile(join(workspace.root, "src/app.ts"), "utf8"),
      "let a = 10;\nlet b = 2;\nlet a2 = 1;\n",
    );
  });

  it("turns a missing file into advice, not an exception", async () => {
    const result = await call("read", { path: "nope.txt" });
    assert.equal(result.ok, false);
    assert.match(result.text, /read failed: no such file or folder .*use list or glob/);
  });
});

describe("grep, glob, list", () => {
  it("greps with a regular expression and a file filter", async () => {
    const result = await call("grep", { pattern: "twice", glob: "*.ts" });
    assert.equal(result.text, "src/deep/util.ts:1: export const twice = (n: number) => n * 2;");
    const invalid = await call("grep", { pattern: "(" });
    assert.match(invalid.text, /not a valid regular expression/);
  });

  it("globs and lists", async () => {
    assert.equal((await call("glob", { pattern: "src/**/*.ts" })).text, "src/app.ts\nsrc/deep/util.ts");
    const listed = await call("list", { path: "src", depth: 2 });
    assert.equal(listed.text, "app.ts\ndeep/\n  util.ts");
  });
});

describe("bash", () => {
  it("merges stdout and stderr with the exit code, keeping the tail of a long output and the whole in a log", async () => {
    const result = await call("bash", { command: "seq 1 500; echo oops >&2; exit 4" });
    assert.equal(result.ok, false);
    assert.match(result.text, /oops\n\[exit code 4\]$/);
    const log = /The whole output is in (\S+);/.exec(result.text)?.[1];
    assert.ok(log, result.text.slice(0, 300));
    const whole = await readFile(log, "utf8");
    assert.match(whole, /^1\n2\n/);
    const logRead = await call("read", { path: log, offset: 1, limit: 2 });
    assert.equal(logRead.ok, true, "the log is readable by read");
  });

  it("kills the command and everything it started when its timeout passes", async () => {
    const step = `tools-test:tool-${calls + 1}`;
    const result = await call("bash", { command: "(sleep 60 &) ; sleep 60", timeout: 0.5 });
    assert.match(
      result.text,
      /\[timed out after 0\.5 s: the command and everything it started were killed\]/,
    );
    assert.deepEqual(
      findTaggedProcesses(stepTagVariable, (value) => value === step),
      [],
    );
  });
});

describe("run (read-only commands, no shell)", () => {
  it("runs an allowlisted command without a shell", async () => {
    const result = await call("run", { command: "grep -n 'TODO: twice' notes.md" }, { readOnly: true });
    assert.equal(result.ok, true, result.text);
    assert.equal(result.text, "2:TODO: twice\n[exit code 0]");
  });

  it("refuses other commands, shell syntax, writing options and paths outside", async () => {
    for (const [command, reason] of [
      ["rm -rf src", /rm is not an allowed command/],
      ["cat notes.md | sh", /no shell syntax/],
      ["echo $(id)", /no shell syntax/],
      ["git commit -m x", /git commit is not allowed/],
      ["git diff --output=/tmp/x", /--output=\/tmp\/x is not allowed/],
      ["find . -delete", /find -delete is not allowed/],
      ["cat /etc/passwd", /outside the working directory/],
      ["cat secret-link", /through a symbolic link/],
    ] as const) {
      const result = await call("run", { command }, { readOnly: true });
      assert.equal(result.ok, false, command);
      assert.match(result.text, reason, command);
    }
    assert.match(await readFile(join(workspace.root, "notes.md"), "utf8"), /TODO/);
  });

  it("refuses options that run a program or write, however they are spelled, and runs nothing", async () => {
    const marker = join(workspace.root, "pwned");
    for (const command of [
      `git grep -O'sh -c "touch ${marker}"' TODO`,
      "git grep -Osh TODO",
      "git grep -nOsh TODO",
      "git grep -n -O sh TODO",
      "git grep --open-files-in-pager=sh TODO",
      "git grep --open-files=sh TODO",
      "git grep --open sh TODO",
      "git diff --output=pwned",
      "git diff --outp=pwned",
      "git log -p --output pwned",
      "git show --out=pwned",
      "git diff --ext-diff",
      "git diff --ext",
      "git log -p --textconv",
      "git diff --no-index /etc/hostname notes.md",
      "git diff --no-ind notes.md long.txt",
      "git -c core.pager=sh log",
      "git --exec-path=. log",
      "git -c diff.external=sh diff",
      "GIT_EXTERNAL_DIFF=sh git diff",
      "env GIT_PAGER=sh git log",
      "tail -nf notes.md",
      "tail --fol notes.md",
      "find . -fprint pwned",
      "find . -execdir touch pwned ;",
      "file -C -m notes.md",
      "file -bC -m notes.md",
      "file --comp -m notes.md",
    ]) {
      const result = await call("run", { command }, { readOnly: true });
      assert.equal(result.ok, false, command);
      assert.match(result.text, /not allowed|not an allowed command|no shell syntax/, command);
    }
    await assert.rejects(readFile(marker), /ENOENT/);
  });

  it("refuses a pattern file outside the readable folders, attached, clustered or abbreviated", async () => {
    for (const command of [
      "grep -f/etc/hostname -r .",
      "grep -rf/etc/hostname .",
      "grep -f /etc/hostname -r .",
      "grep --file=/etc/hostname -r .",
      "grep --fi=/etc/hostname -r .",
      "grep -rfsecret-link .",
      "grep --exclude-from=../secret.txt -r TODO .",
      "wc --files0-from=/etc/hostname",
      "git grep -f/etc/hostname",
    ]) {
      const result = await call("run", { command }, { readOnly: true });
      assert.equal(result.ok, false, command);
      assert.match(result.text, /outside the working directory|through a symbolic link/, command);
    }
  });

  it("still runs the harmless spellings: long options that only share a prefix, clusters without them", async () => {
    for (const command of [
      "grep -rn TODO .",
      "grep -c --fixed-strings TODO notes.md",
      "find . -name notes.md",
    ]) {
      const result = await call("run", { command }, { readOnly: true });
      assert.equal(result.ok, true, `${command}: ${result.text}`);
    }
  });

  it("is the only command tool of the read-only set: no write, edit or bash", async () => {
    for (const name of ["write", "edit", "bash"]) {
      const result = await call(
        name,
        { path: "notes.md", content: "x", command: "true" },
        { readOnly: true },
      );
      assert.match(result.text, new RegExp(`There is no tool named "${name}"`));
    }
  });
});
