/**
 * A goal that is still a placeholder (`TODO`, `TBD`, `...`, init's "TODO: replace this with the standing
 * goal") would send a maker off with nothing to do and a verifier with nothing to judge: `validate` and
 * `run` refuse it. Pure.
 */

const markers = /^(?:todo|tbd|tba|fixme|xxx|placeholder|changeme|goal)\b\s*[:.!?-]*\s*/i;

/** Why `goal` is a placeholder, in a few words, or undefined when it reads as a real goal. */
export function placeholderGoal(goal: string): string | undefined {
  const text = goal.trim();
  const quoted = JSON.stringify(text.length > 40 ? `${text.slice(0, 37)}...` : text);
  if (/replace this with the standing goal/i.test(text)) return `${quoted} is init's placeholder`;
  if (/^<[^>]*>$/.test(text)) return `${quoted} is a placeholder`;
  if ((text.match(/\p{L}/gu) ?? []).length < 3) return `${quoted} is a placeholder`;
  const marker = markers.exec(text);
  if (!marker) return undefined;
  const rest = text.slice(marker[0].length);
  const words = rest.split(/\s+/).filter((word) => /\p{L}/u.test(word));
  if (words.length < 3 || /\bgoal\b/i.test(rest)) return `${quoted} is a placeholder`;
  return undefined;
}
