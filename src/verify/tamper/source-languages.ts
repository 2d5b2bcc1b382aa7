/**
 * Just enough of each language's lexical syntax to tell code from comments and string literals, and
 * which language a path is written in. Pure.
 */

/** A language the screen understands: test conventions for the first seven, syntax only for the rest. */
export type SourceLanguage =
  | "javascript"
  | "python"
  | "go"
  | "rust"
  | "java"
  | "ruby"
  | "elixir"
  | "shell"
  | "yaml"
  | "toml"
  | "ini"
  | "json"
  | "jsonc"
  | "xml"
  | "make";

/** A string or comment delimited by `open` and `close`. */
export interface Delimited {
  open: string;
  close: string;
  /** A backslash escapes the next character. */
  escapes: boolean;
  /** May span lines; otherwise it ends at the end of its line, closed or not. */
  multiline: boolean;
}

/** The lexical syntax of a language: comments and string literals. */
export interface LanguageSyntax {
  lineComments: string[];
  /** A line comment starts only at the start of a line or after whitespace (YAML, shell). */
  lineCommentNeedsSpace: boolean;
  blockComments: Delimited[];
  /** Longest openers first. */
  strings: Delimited[];
  /** `'` opens a character literal only when it closes right away (`'a'`, `'\n'`); else it is code. */
  characterLiterals: boolean;
  /** Lines that start with one of these (at column 0) open a block comment ended by a line starting with `close`. */
  lineBlockComments: { open: string; close: string }[];
}

const quoted = (open: string, options: Partial<Delimited> = {}): Delimited => ({
  open,
  close: open,
  escapes: true,
  multiline: false,
  ...options,
});

const cBlock: Delimited = { open: "/*", close: "*/", escapes: false, multiline: true };
const tripleDouble = quoted('"""', { multiline: true });
const tripleSingle = quoted("'''", { multiline: true });

const base: LanguageSyntax = {
  lineComments: [],
  lineCommentNeedsSpace: false,
  blockComments: [],
  strings: [],
  characterLiterals: false,
  lineBlockComments: [],
};

/** The syntax of each language. */
export const languageSyntax: Record<SourceLanguage, LanguageSyntax> = {
  javascript: {
    ...base,
    lineComments: ["//"],
    blockComments: [cBlock],
    strings: [quoted('"'), quoted("'"), quoted("`", { multiline: true })],
  },
  python: { ...base, lineComments: ["#"], strings: [tripleDouble, tripleSingle, quoted('"'), quoted("'")] },
  go: {
    ...base,
    lineComments: ["//"],
    blockComments: [cBlock],
    strings: [quoted('"'), quoted("`", { escapes: false, multiline: true })],
    characterLiterals: true,
  },
  rust: {
    ...base,
    lineComments: ["//"],
    blockComments: [cBlock],
    strings: [
      { open: 'r#"', close: '"#', escapes: false, multiline: true },
      { open: 'r"', close: '"', escapes: false, multiline: true },
      quoted('"', { multiline: true }),
    ],
    characterLiterals: true,
  },
  java: {
    ...base,
    lineComments: ["//"],
    blockComments: [cBlock],
    strings: [tripleDouble, quoted('"')],
    characterLiterals: true,
  },
  ruby: {
    ...base,
    lineComments: ["#"],
    strings: [quoted('"'), quoted("'")],
    lineBlockComments: [{ open: "=begin", close: "=end" }],
  },
  elixir: { ...base, lineComments: ["#"], strings: [tripleDouble, tripleSingle, quoted('"'), quoted("'")] },
  shell: { ...base, lineComments: ["#"], lineCommentNeedsSpace: true, strings: [quoted('"'), quoted("'")] },
  yaml: { ...base, lineComments: ["#"], lineCommentNeedsSpace: true, strings: [quoted('"'), quoted("'")] },
  toml: { ...base, lineComments: ["#"], strings: [tripleDouble, tripleSingle, quoted('"'), quoted("'")] },
  ini: { ...base, lineComments: ["#", ";"], lineCommentNeedsSpace: true, strings: [] },
  json: { ...base, strings: [quoted('"')] },
  jsonc: { ...base, lineComments: ["//"], blockComments: [cBlock], strings: [quoted('"')] },
  xml: {
    ...base,
    blockComments: [{ open: "<!--", close: "-->", escapes: false, multiline: true }],
    strings: [],
  },
  make: { ...base, lineComments: ["#"], strings: [] },
};

const byExtension: Record<string, SourceLanguage> = {
  js: "javascript",
  jsx: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  ts: "javascript",
  tsx: "javascript",
  mts: "javascript",
  cts: "javascript",
  vue: "javascript",
  svelte: "javascript",
  py: "python",
  pyi: "python",
  go: "go",
  rs: "rust",
  java: "java",
  kt: "java",
  kts: "java",
  groovy: "java",
  gradle: "java",
  scala: "java",
  cs: "java",
  rb: "ruby",
  rake: "ruby",
  gemspec: "ruby",
  ex: "elixir",
  exs: "elixir",
  sh: "shell",
  bash: "shell",
  zsh: "shell",
  yml: "yaml",
  yaml: "yaml",
  toml: "toml",
  ini: "ini",
  cfg: "ini",
  json: "json",
  jsonc: "jsonc",
  json5: "jsonc",
  xml: "xml",
  mk: "make",
};

const byName: Record<string, SourceLanguage> = {
  Makefile: "make",
  makefile: "make",
  GNUmakefile: "make",
  Rakefile: "ruby",
  Gemfile: "ruby",
  Jenkinsfile: "java",
  Pipfile: "toml",
  ".coveragerc": "ini",
  ".flake8": "ini",
  ".pylintrc": "ini",
  pylintrc: "ini",
  ".editorconfig": "ini",
  ".rspec": "shell",
  ".simplecov": "ruby",
  justfile: "make",
};

/** Files that are JSON by extension but allow comments (their tools read them as JSONC). */
const jsoncNames = /^(tsconfig.*|jsconfig.*|biome|\.eslintrc|\.babelrc|\.swcrc|devcontainer|turbo)\.json$/;

/**
 * The language of a repository-relative path, by file name and then extension; `undefined` for
 * anything else (prose, data, binaries), which the screen reads only as file names.
 */
export function languageOf(path: string): SourceLanguage | undefined {
  const name = path.slice(path.lastIndexOf("/") + 1);
  if (byName[name]) return byName[name];
  if (jsoncNames.test(name)) return "jsonc";
  if (/^\.(eslintrc|prettierrc|babelrc|mocharc|nycrc|c8rc|swcrc|lintstagedrc)$/.test(name)) return "jsonc";
  if (/^requirements.*\.txt$/.test(name) || /^constraints.*\.txt$/.test(name)) return "shell";
  if (/^\.(?:husky|githooks)\//.test(path)) return "shell";
  const dot = name.lastIndexOf(".");
  if (dot < 0) return undefined;
  return byExtension[name.slice(dot + 1).toLowerCase()];
}

/** Languages whose files hold code that can define tests and assertions. */
export const testLanguages: ReadonlySet<SourceLanguage> = new Set([
  "javascript",
  "python",
  "go",
  "rust",
  "java",
  "ruby",
  "elixir",
]);
