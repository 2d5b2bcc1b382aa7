/**
 * A small reader of POSIX shell command lines, enough to see which programs and files a command names:
 * words with their quotes and backslashes removed, split into simple commands at `&&`, `||`, `;`, `|`,
 * `&`, newlines and parentheses, with redirections left out. Pure; never throws (an unterminated quote
 * ends the text). Words holding an expansion (`$VAR`, `$(…)`, a backquote) are marked, since their value
 * is not known before the shell runs.
 */

/** One word of a simple command. */
export interface ShellWord {
  text: string;
  /** The word holds an unquoted or double-quoted `$` or a backquote: its value is known only at run time. */
  expands: boolean;
}

/** A simple command: its words, and whether a `(` opened a subshell right before it. */
export interface SimpleCommand {
  words: ShellWord[];
  /** How many subshells (parentheses) enclose it; `cd` inside one does not outlive it. */
  depth: number;
}

const separators = new Set([";", "&", "|", "\n", "(", ")"]);

/** The simple commands of `line`, in order. */
export function simpleCommands(line: string): SimpleCommand[] {
  const commands: SimpleCommand[] = [];
  let words: ShellWord[] = [];
  let depth = 0;
  let text = "";
  let expands = false;
  let inWord = false;
  // The next word is a redirection's target (`> out.log`), not an argument.
  let redirectTarget = false;
  const endWord = () => {
    if (inWord && !redirectTarget) words.push({ text, expands });
    if (inWord) redirectTarget = false;
    text = "";
    expands = false;
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    if (words.length > 0) commands.push({ words, depth });
    words = [];
    redirectTarget = false;
  };
  for (let index = 0; index < line.length; index++) {
    const character = line[index];
    if (character === "\\") {
      if (line[index + 1] === "\n") {
        index++;
        continue;
      }
      text += line[index + 1] ?? "";
      inWord = true;
      index++;
    } else if (character === "'") {
      const end = line.indexOf("'", index + 1);
      text += line.slice(index + 1, end < 0 ? line.length : end);
      inWord = true;
      index = end < 0 ? line.length : end;
    } else if (character === '"') {
      index++;
      while (index < line.length && line[index] !== '"') {
        if (line[index] === "\\" && '"\\$`\n'.includes(line[index + 1] ?? "")) index++;
        else if (line[index] === "$" || line[index] === "`") expands = true;
        text += line[index];
        index++;
      }
      inWord = true;
    } else if (character === " " || character === "\t") {
      endWord();
    } else if (character === "#" && !inWord) {
      while (index < line.length && line[index] !== "\n") index++;
      index--;
    } else if (character === "$" && line[index + 1] === "(") {
      // A command substitution is one word of unknown value; its own commands are read too.
      const end = closingParenthesis(line, index + 1);
      commands.push(...simpleCommands(line.slice(index + 2, end)));
      text += line.slice(index, end + 1);
      expands = true;
      inWord = true;
      index = end;
    } else if (character === ">" || character === "<" || (character === "&" && line[index + 1] === ">")) {
      // A redirection: `2>&1`, `>> out.log`, `<in`, `&>all.log`. A file descriptor number before it goes.
      if (!/^\d+$/.test(text) || expands) endWord();
      text = "";
      inWord = false;
      while (">&<|".includes(line[index + 1] ?? "x") && index + 1 < line.length) index++;
      const descriptor = /^(?:\d+|-)/.exec(line.slice(index + 1));
      if (line[index] === "&" && descriptor) index += descriptor[0].length;
      else redirectTarget = true;
    } else if (separators.has(character)) {
      endCommand();
      if (character === "(") depth++;
      else if (character === ")") depth = Math.max(0, depth - 1);
    } else {
      if (character === "$" || character === "`") expands = true;
      text += character;
      inWord = true;
    }
  }
  endCommand();
  return commands;
}

/** The index of the `)` that closes the `(` at `open`, or the end of the text. */
function closingParenthesis(line: string, open: number): number {
  let depth = 0;
  for (let index = open; index < line.length; index++) {
    if (line[index] === "(") depth++;
    else if (line[index] === ")" && --depth === 0) return index;
  }
  return line.length;
}
