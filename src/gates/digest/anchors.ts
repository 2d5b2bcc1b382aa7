/**
 * Finding `file:line` places in log text (stack frames, compiler locations, tracebacks) and keeping
 * only those in the project: runtime internals, dependencies and toolchains are dropped.
 */
import type { Anchor } from "./digest-types.ts";

// `path.ext:line[:column]`, optionally as a file:// URL; the extension starts with a letter so that
// times (12:30:01) and versions do not match.
const pathLinePattern =
  /(?:file:\/\/)?((?:[A-Za-z]:[\\/])?[\w.@~+\-\\/]*[\w-]\.[A-Za-z]\w{0,5}):(\d+)(?::\d+)?/g;
// Python tracebacks: File "path", line 12
const pythonFramePattern = /File "([^"]+)", line (\d+)/g;
// tsc and MSBuild style: path.ts(12,5)
const parenthesizedPattern = /((?:[A-Za-z]:[\\/])?[\w.@~+\-\\/]*[\w-]\.[A-Za-z]\w{0,5})\((\d+),\d+\)/g;

// Paths that belong to a runtime, a dependency or a toolchain rather than to the project.
const foreignPath =
  /^(?:node:|internal\/|\/\/|<)|node_modules\/|\/rustc\/|\/\.cargo\/registry\/|\/\.rustup\/|^\/usr\/(?:local\/)?lib\/|^\/usr\/local\/go\/|^\/opt\/|site-packages\/|dist-packages\/|\/lib\/python\d|<frozen |\/gems\/|^lib\/(?:elixir|ex_unit)\/|\/\.pyenv\/|\/go\/pkg\/mod\//;

/** Anchors in one line of log text, in the order they appear; foreign paths are left out. */
export function findAnchors(text: string, root?: string): Anchor[] {
  if (!mayHoldAnchor(text)) return [];
  const found: Anchor[] = [];
  for (const pattern of [pythonFramePattern, parenthesizedPattern, pathLinePattern]) {
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
      // A path starts a word: `p://example.com:8080` inside a URL is not one.
      if (!match[0].startsWith("file://") && /[\w:]/.test(text.charAt(match.index - 1))) continue;
      const anchor = projectAnchor(match[1], Number(match[2]), root);
      if (anchor) found.push(anchor);
    }
    if (found.length > 0) return found;
  }
  return found;
}

const anchorHint = /[:(]\d|, line \d/;

/** A cheap test that rules out most lines before the patterns run: a line number follows `:`, `(` or `, line `. */
function mayHoldAnchor(text: string): boolean {
  return anchorHint.test(text);
}

/**
 * The anchor for `file` and `line` as the project sees it, or undefined for a foreign path or a line
 * that is not a positive number. A `file://` prefix and a leading `./` are removed; paths under `root`
 * become relative to it.
 */
export function projectAnchor(file: string, line: number, root?: string): Anchor | undefined {
  if (!Number.isInteger(line) || line <= 0) return undefined;
  const path = normalizePath(file, root);
  if (!path || foreignPath.test(path)) return undefined;
  return { file: path, line };
}

/** `file` without a `file://` prefix or a leading `./`, relative to `root` when under it. */
export function normalizePath(file: string, root?: string): string {
  let path = file.startsWith("file://") ? decodeFileUrl(file.slice(7)) : file;
  if (root) {
    const prefix = root.endsWith("/") ? root : `${root}/`;
    if (path.startsWith(prefix)) path = path.slice(prefix.length);
  }
  while (path.startsWith("./")) path = path.slice(2);
  return path;
}

function decodeFileUrl(path: string): string {
  if (!path.includes("%")) return path;
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
