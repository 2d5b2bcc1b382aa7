/** What the model reads about each tool of the built-in agent. Paths are relative to the working directory. */

export const readDescription = `Read a text file. Lines come numbered ("<number>\\t<text>"); the numbers are not part of the file.
Use offset (1-based first line) and limit (number of lines) to read part of a long file; a long output is cut
and says which offset reads on.`;

export const writeDescription = `Create or overwrite a file with the given content (parent folders are created). Prefer edit for
changing part of an existing file.`;

export const editDescription = `Replace exact text in a file. old_string must match the file exactly, including whitespace and
indentation, and must occur exactly once unless replace_all is true; include enough surrounding lines to make
it unique. Read the file first.`;

export const bashDescription = `Run a shell command (sh -c) in the working directory and return its output (stdout and stderr merged)
and exit code. timeout is in seconds (default 120, at most 600); the command and everything it started are
killed when it passes. Use it to run tests, builds and other programs; use read, grep, glob and list to look at files.`;

export const grepDescription = `Search file contents with a regular expression (JavaScript syntax). Prints "path:line: text" for each
matching line. path narrows the search to a folder or file; glob filters file names (e.g. "*.ts"). Skips .git,
node_modules and binary files.`;

export const globDescription = `Find files whose path matches a glob pattern (e.g. "src/**/*.ts", "**/*.test.js"), relative to path
(default: the working directory). Skips .git and node_modules.`;

export const listDescription = `List a folder's entries (folders end with "/"), down to depth levels (default 1, at most 4). Skips .git
and node_modules contents.`;

export const runDescription = (
  allowed: string,
) => `Run one read-only command without a shell: no pipes, redirections, variables or globbing; quote
arguments with spaces. Allowed: ${allowed}. Paths must stay inside the working directory.`;

export const structuredOutputDescription = `Give your final answer: call this once, with the answer as the arguments, when you are done. Nothing
you do after it counts.`;
