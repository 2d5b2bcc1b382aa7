/**
 * Finds the JSON answer in an agent's last message, for the verifier and replanner roles: the whole
 * message when it is one JSON value, else the last fenced ```json block that parses, else the last
 * top-level `{...}` object in the prose that parses. Pure; undefined when there is none.
 */
export function extractJsonAnswer(message: string): string | undefined {
  const whole = message.trim();
  if (parses(whole)) return whole;
  const fenced = [...message.matchAll(/```(?:json)?[ \t]*\n([\s\S]*?)```/g)]
    .map((match) => match[1].trim())
    .filter(parses)
    .at(-1);
  if (fenced) return fenced;
  return lastBareObject(message);
}

function parses(text: string): boolean {
  if (!text) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The last balanced `{...}` that parses and is not nested in an earlier one. */
function lastBareObject(text: string): string | undefined {
  let found: string | undefined;
  let index = text.indexOf("{");
  while (index !== -1) {
    const end = balancedEnd(text, index);
    const candidate = end === undefined ? undefined : text.slice(index, end + 1);
    if (candidate && parses(candidate)) {
      found = candidate;
      index = text.indexOf("{", (end ?? index) + 1);
    } else {
      index = text.indexOf("{", index + 1);
    }
  }
  return found;
}

/** Index of the `}` closing the `{` at `start`, skipping braces inside strings; undefined if unclosed. */
function balancedEnd(text: string, start: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index++) {
    const character = text[index];
    if (inString) {
      if (character === "\\") index++;
      else if (character === '"') inString = false;
    } else if (character === '"') inString = true;
    else if (character === "{") depth++;
    else if (character === "}") {
      depth--;
      if (depth === 0) return index;
    }
  }
  return undefined;
}
