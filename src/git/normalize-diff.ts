/**
 * The normalized form of a unified diff used for no-progress fingerprints: what the change does to
 * code, without what does not (positions, whitespace, comment-only lines). Pure.
 */

/** One file of a diff as parsed: its path, markers, and its changed lines in diff order. */
interface FileChange {
  path: string;
  rename?: { from: string; to?: string };
  binary: boolean;
  /** Runs of adjacent changed lines (no context line between them), in order. */
  blocks: ChangedLine[][];
}

interface ChangedLine {
  sign: "+" | "-";
  text: string;
}

/** Prose files: only HTML comments count as comments there (`#` and `*` start headings and bullets). */
const proseExtensions = /\.(md|markdown|mdx|txt|rst|adoc|asciidoc)$/i;

const htmlComment = /^<!--(?!.*-->.)/;

/** Lines that are only a comment, once trimmed; conservative so that code is never mistaken for one. */
const codeComments = [
  /^\/\//, // C, C++, Java, JavaScript, Go, Rust…
  // Shell, Python, YAML, Ruby… but not preprocessor lines, Rust attributes, shebangs or CSS selectors.
  /^#(?![[!]|(?:include|define|undef|if|ifdef|ifndef|elif|else|endif|pragma|error|warning|import|line|region|endregion)\b)(?!.*\{)/,
  /^--(?:\s|$)/, // SQL, Lua, Haskell (not `--i;` or `--flag`)
  /^;(?:[\s;]|$)/, // Lisp, assembly, INI (not `;(function…`)
  /^\*(?:[\s/]|$)/, // inside a block comment (not `*pointer = 1`)
  /^\/\*(?!.*\*\/.)/, // a block comment opening, or a whole one-line block comment
  htmlComment,
];

/**
 * Normalizes a unified diff (as `git diff` prints it) for fingerprinting. Keeps, per file, only the
 * added and removed lines, in order, each as `+text` or `-text` with all whitespace removed. Drops
 * headers, hunk headers and line numbers, blank or whitespace-only lines, lines that are only a comment
 * (`//`, `#`, `/* *\/`, `*`, `--`, `;`, `<!-- -->`; in prose files only `<!-- -->`), and a removed line
 * re-added unchanged apart from whitespace within the same run of changes. Files left with no line are
 * dropped (a binary change or a rename still counts). Files are sorted by path; an empty diff gives "".
 */
export function normalizeDiff(text: string): string {
  const sections: string[] = [];
  const files = parseDiff(text).sort((left, right) =>
    left.path < right.path ? -1 : left.path > right.path ? 1 : 0,
  );
  for (const file of files) {
    const comments = proseExtensions.test(file.path) ? [htmlComment] : codeComments;
    const lines: string[] = [];
    for (const block of file.blocks) lines.push(...normalizeBlock(block, comments));
    if (file.rename) lines.unshift(`rename ${file.rename.from} -> ${file.rename.to ?? file.path}`);
    if (file.binary) lines.unshift("binary");
    if (lines.length > 0) sections.push(`file ${file.path}\n${lines.join("\n")}\n`);
  }
  return sections.join("");
}

function normalizeBlock(block: ChangedLine[], comments: RegExp[]): string[] {
  const kept = block
    .filter((line) => {
      const trimmed = line.text.trim();
      return trimmed !== "" && !comments.some((pattern) => pattern.test(trimmed));
    })
    .map((line) => ({ sign: line.sign, key: line.text.replace(/\s+/g, "") }));
  const removed = kept.filter((line) => line.sign === "-");
  const added = kept.filter((line) => line.sign === "+");
  const common = commonSubsequence(
    removed.map((line) => line.key),
    added.map((line) => line.key),
  );
  const lines: string[] = [];
  for (const [index, line] of removed.entries()) if (!common.removed.has(index)) lines.push(`-${line.key}`);
  for (const [index, line] of added.entries()) if (!common.added.has(index)) lines.push(`+${line.key}`);
  return lines;
}

/** Largest blocks compared line by line; beyond it only an identical run cancels out. */
const maximumComparisonCells = 4_000_000;

/** Indexes of a longest common subsequence of `left` and `right` (lines that only moved in whitespace). */
function commonSubsequence(left: string[], right: string[]): { removed: Set<number>; added: Set<number> } {
  const removed = new Set<number>();
  const added = new Set<number>();
  if (left.length === 0 || right.length === 0) return { removed, added };
  if (left.length * right.length > maximumComparisonCells) {
    if (left.length === right.length && left.every((line, index) => line === right[index])) {
      for (const index of left.keys()) {
        removed.add(index);
        added.add(index);
      }
    }
    return { removed, added };
  }
  const width = right.length + 1;
  const lengths = new Uint32Array((left.length + 1) * width);
  for (let i = left.length - 1; i >= 0; i--) {
    for (let j = right.length - 1; j >= 0; j--) {
      lengths[i * width + j] =
        left[i] === right[j]
          ? lengths[(i + 1) * width + j + 1] + 1
          : Math.max(lengths[(i + 1) * width + j], lengths[i * width + j + 1]);
    }
  }
  let i = 0;
  let j = 0;
  while (i < left.length && j < right.length) {
    if (left[i] === right[j]) {
      removed.add(i++);
      added.add(j++);
    } else if (lengths[(i + 1) * width + j] >= lengths[i * width + j + 1]) {
      i++;
    } else {
      j++;
    }
  }
  return { removed, added };
}

/** Splits `git diff` output into files, hunks' changed lines grouped into runs; tolerant of plain diffs. */
function parseDiff(text: string): FileChange[] {
  const files: FileChange[] = [];
  let file: FileChange | undefined;
  let block: ChangedLine[] = [];
  let oldRemaining = 0;
  let newRemaining = 0;
  const closeBlock = () => {
    if (file && block.length > 0) file.blocks.push(block);
    block = [];
  };
  const startFile = (path: string) => {
    closeBlock();
    file = { path, binary: false, blocks: [] };
    files.push(file);
  };
  for (const rawLine of text.split("\n")) {
    const line = rawLine.endsWith("\r") ? rawLine.slice(0, -1) : rawLine;
    if (oldRemaining > 0 || newRemaining > 0) {
      const sign = line[0];
      if (sign === "\\") continue;
      if (sign === "-" || sign === "+") {
        block.push({ sign, text: line.slice(1) });
        if (sign === "-") oldRemaining--;
        else newRemaining--;
      } else {
        // A context line (some tools strip its leading space when the line is empty).
        closeBlock();
        oldRemaining--;
        newRemaining--;
      }
      if (oldRemaining <= 0 && newRemaining <= 0) closeBlock();
      continue;
    }
    const hunk = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(line);
    if (hunk) {
      if (!file) startFile("");
      oldRemaining = hunk[1] === undefined ? 1 : Number(hunk[1]);
      newRemaining = hunk[2] === undefined ? 1 : Number(hunk[2]);
      continue;
    }
    if (line.startsWith("diff --git ")) {
      const paths = /^diff --git a\/(.*) b\/(.*)$/.exec(line);
      startFile(paths ? paths[2] : line.slice("diff --git ".length));
    } else if (line.startsWith("--- ")) {
      const path = stripPrefix(line.slice(4));
      if (!file || file.blocks.length > 0) startFile(path);
      else if (path !== "/dev/null") file.path = path;
    } else if (line.startsWith("+++ ") && file) {
      const path = stripPrefix(line.slice(4));
      if (path !== "/dev/null") file.path = path;
    } else if (line.startsWith("rename from ") && file) {
      file.rename = { from: line.slice("rename from ".length) };
    } else if (line.startsWith("rename to ") && file) {
      file.path = line.slice("rename to ".length);
      file.rename = { from: file.rename?.from ?? "", to: file.path };
    } else if (line.startsWith("Binary files ") && file) {
      file.binary = true;
    }
  }
  closeBlock();
  return files;
}

/** `a/path` or `b/path` (with an optional tab and timestamp after it) to `path`. */
function stripPrefix(header: string): string {
  const path = header.split("\t")[0];
  return /^[ab]\//.test(path) ? path.slice(2) : path;
}
