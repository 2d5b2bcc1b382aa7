/** Caps text to `limit` characters, keeping the end (or the start) and saying how much was cut. */
export function cap(text: string, limit: number, cut: "start" | "end" = "end"): string {
  if (text.length <= limit) return text;
  const omitted = text.length - limit;
  return cut === "start"
    ? `[... ${omitted} characters cut ...]\n${text.slice(-limit)}`
    : `${text.slice(0, limit)}\n[... ${omitted} characters cut ...]`;
}
