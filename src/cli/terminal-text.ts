/**
 * Text from a model or a command, made safe to print on a terminal: escape sequences (colours, OSC 52
 * clipboard writes, window titles, screen clears, cursor moves) and other control characters (a
 * carriage return that overwrites a line with a forged one) are removed; newlines and tabs stay.
 */

const escapeSequence =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences start with control characters.
  /\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[PX^_][^\x1b\x9c]*(?:\x1b\\|\x9c)?|\x1b[ -/]*[0-~]?/g;

// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to remove control characters.
const controlCharacter = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** `text` without terminal escape sequences or control characters other than `\n` and `\t`. */
export function stripTerminalControls(text: string): string {
  return text.replace(escapeSequence, "").replace(controlCharacter, "");
}
