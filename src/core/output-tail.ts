/** Default size of an output tail: 4 KiB. */
export const defaultTailBytes = 4 * 1024;

/** Keeps the end of a growing text without holding all of it. */
export interface OutputTail {
  append(text: string): void;
  /** The last `limitBytes` bytes of everything appended, see `cutTail`. */
  text(): string;
}

/**
 * A rolling tail of at most `limitBytes` bytes (default 4 KiB). Appends are cheap: it keeps a few
 * times the limit and trims only when that overflows.
 */
export function createOutputTail(limitBytes: number = defaultTailBytes): OutputTail {
  let kept = "";
  // Characters are at most 4 bytes in UTF-8 (2 UTF-16 units for those), so this many characters always
  // hold `limitBytes` bytes plus the line the cut may have to drop.
  const keepCharacters = limitBytes * 2;
  return {
    append(text) {
      kept += text;
      if (kept.length > keepCharacters * 2) kept = kept.slice(-keepCharacters);
    },
    text() {
      return cutTail(kept, limitBytes);
    },
  };
}

/**
 * The last `limitBytes` bytes (UTF-8) of `text`, starting at a line boundary where one exists within
 * them, never with half a character. Text that fits is returned unchanged.
 */
export function cutTail(text: string, limitBytes: number = defaultTailBytes): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= limitBytes) return text;
  let start = bytes.length - limitBytes;
  // Step past UTF-8 continuation bytes so that the cut falls between characters.
  while (start < bytes.length && (bytes[start] & 0xc0) === 0x80) start++;
  // A cut exactly after a newline is already on a line boundary.
  if (bytes[start - 1] !== 0x0a) {
    const newline = bytes.indexOf(0x0a, start);
    if (newline !== -1 && newline + 1 < bytes.length) start = newline + 1;
  }
  return bytes.subarray(start).toString("utf8");
}
