/**
 * A parser for unified diffs as `git diff` prints them (and plain `diff -u` output): files, hunks, and
 * each line with its old and new line numbers. Pure; tolerant of anything it does not recognise.
 */

/** One line of a hunk: context (` `), added (`+`) or removed (`-`), without its sign. */
export interface DiffLine {
  sign: " " | "+" | "-";
  text: string;
  /** 1-based line number in the old file (context and removed lines). */
  oldLine?: number;
  /** 1-based line number in the new file (context and added lines). */
  newLine?: number;
}

/** One `@@` hunk. `section` is the text git prints after the second `@@` (the enclosing function). */
export interface DiffHunk {
  oldStart: number;
  newStart: number;
  section: string;
  lines: DiffLine[];
}

/**
 * One file of a diff. `path` is the new path, or the old one for a deleted file. `oldPath` differs from
 * `path` only for a rename or copy.
 */
export interface DiffFile {
  path: string;
  oldPath: string;
  status: "added" | "deleted" | "modified" | "renamed";
  binary: boolean;
  hunks: DiffHunk[];
}

const hunkHeader = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$/;

/** Parses `text` into files in diff order. Never throws; an empty text gives `[]`. */
export function parseUnifiedDiff(text: string): DiffFile[] {
  const files: DiffFile[] = [];
  let file: DiffFile | undefined;
  let hunk: DiffHunk | undefined;
  let oldRemaining = 0;
  let newRemaining = 0;
  let oldNumber = 0;
  let newNumber = 0;
  const startFile = (path: string, oldPath = path): DiffFile => {
    hunk = undefined;
    file = { path, oldPath, status: "modified", binary: false, hunks: [] };
    files.push(file);
    return file;
  };
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  for (const rawLine of lines) {
    const line = rawLine.endsWith("\r") ? rawLine.slice(0, -1) : rawLine;
    if (hunk && (oldRemaining > 0 || newRemaining > 0)) {
      const sign = line[0];
      if (sign === "\\") continue; // "\ No newline at end of file"
      if (sign === "-") {
        hunk.lines.push({ sign, text: line.slice(1), oldLine: oldNumber++ });
        oldRemaining--;
      } else if (sign === "+") {
        hunk.lines.push({ sign, text: line.slice(1), newLine: newNumber++ });
        newRemaining--;
      } else {
        // A context line (some tools strip the leading space of an empty one).
        hunk.lines.push({ sign: " ", text: line.slice(1), oldLine: oldNumber++, newLine: newNumber++ });
        oldRemaining--;
        newRemaining--;
      }
      continue;
    }
    if (line.startsWith("\\")) continue;
    const header = hunkHeader.exec(line);
    if (header) {
      const current = file ?? startFile("");
      oldNumber = Number(header[1]);
      newNumber = Number(header[3]);
      oldRemaining = header[2] === undefined ? 1 : Number(header[2]);
      newRemaining = header[4] === undefined ? 1 : Number(header[4]);
      // A zero-length side starts *after* the given line.
      if (oldRemaining === 0) oldNumber++;
      if (newRemaining === 0) newNumber++;
      hunk = { oldStart: oldNumber, newStart: newNumber, section: header[5], lines: [] };
      current.hunks.push(hunk);
      continue;
    }
    if (line.startsWith("diff --git ")) {
      const paths = splitGitHeader(line.slice("diff --git ".length));
      startFile(paths.new, paths.old);
    } else if (line.startsWith("--- ")) {
      const path = headerPath(line.slice(4));
      if (!file || file.hunks.length > 0) startFile(path ?? "");
      if (file && path === undefined) file.status = "added";
      else if (file && path !== undefined) file.oldPath = path;
    } else if (line.startsWith("+++ ") && file) {
      const path = headerPath(line.slice(4));
      if (path === undefined) {
        file.status = "deleted";
        file.path = file.oldPath;
      } else {
        file.path = path;
      }
    } else if (!file) {
      // Text before the first file (a commit message, for example).
    } else if (line.startsWith("new file mode")) {
      file.status = "added";
    } else if (line.startsWith("deleted file mode")) {
      file.status = "deleted";
    } else if (line.startsWith("rename from ") || line.startsWith("copy from ")) {
      file.oldPath = unquote(line.slice(line.indexOf(" from ") + 6));
      file.status = "renamed";
    } else if (line.startsWith("rename to ") || line.startsWith("copy to ")) {
      file.path = unquote(line.slice(line.indexOf(" to ") + 4));
      file.status = "renamed";
    } else if (line.startsWith("Binary files ") || line === "GIT binary patch") {
      file.binary = true;
    }
  }
  return files;
}

/** The path of a `---`/`+++` header without its `a/`/`b/` prefix; `undefined` for `/dev/null`. */
function headerPath(header: string): string | undefined {
  const path = unquote(header.startsWith('"') ? header.slice(0, quotedEnd(header)) : header.split("\t")[0]);
  if (path === "/dev/null") return undefined;
  return /^[ab]\//.test(path) ? path.slice(2) : path;
}

/**
 * The two paths of `a/old b/new`. Either may be C-quoted; unquoted paths may contain spaces, so the
 * split is taken where both halves name the same file (the common case) or at the last ` b/`.
 */
function splitGitHeader(rest: string): { old: string; new: string } {
  const strip = (path: string) => (/^[ab]\//.test(path) ? path.slice(2) : path);
  if (rest.startsWith('"')) {
    const end = quotedEnd(rest);
    const old = unquote(rest.slice(0, end));
    return { old: strip(old), new: strip(unquote(rest.slice(end).trimStart())) };
  }
  if (rest.endsWith('"')) {
    const start = rest.lastIndexOf(' "');
    return { old: strip(rest.slice(0, start)), new: strip(unquote(rest.slice(start + 1))) };
  }
  const half = (rest.length - 1) / 2;
  if (
    Number.isInteger(half) &&
    rest[half] === " " &&
    strip(rest.slice(0, half)) === strip(rest.slice(half + 1))
  ) {
    const path = strip(rest.slice(0, half));
    return { old: path, new: path };
  }
  const split = rest.lastIndexOf(" b/");
  if (split < 0) return { old: rest, new: rest };
  return { old: strip(rest.slice(0, split)), new: strip(rest.slice(split + 1)) };
}

/** Index just past the closing quote of the C-quoted string at the start of `text`. */
function quotedEnd(text: string): number {
  for (let index = 1; index < text.length; index++) {
    if (text[index] === "\\") index++;
    else if (text[index] === '"') return index + 1;
  }
  return text.length;
}

const escapes: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, "\\": 92 };

/** Git's C-style quoting (`"dir/\303\251 \"x\".txt"`) undone, octal escapes read as UTF-8 bytes. */
function unquote(path: string): string {
  if (!(path.startsWith('"') && path.endsWith('"') && path.length >= 2)) return path;
  const bytes: number[] = [];
  const body = path.slice(1, -1);
  for (let index = 0; index < body.length; index++) {
    const character = body[index];
    if (character !== "\\") {
      bytes.push(...Buffer.from(character, "utf8"));
      continue;
    }
    const next = body[index + 1];
    const octal = /^[0-7]{3}/.exec(body.slice(index + 1));
    if (octal) {
      bytes.push(Number.parseInt(octal[0], 8));
      index += 3;
    } else {
      bytes.push(escapes[next] ?? next.charCodeAt(0));
      index += 1;
    }
  }
  return Buffer.from(bytes).toString("utf8");
}
