/** Quotes argv for `sh -c`: every word single-quoted unless it is plainly safe. */
export function shellQuote(words: string[]): string {
  return words
    .map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`))
    .join(" ");
}
