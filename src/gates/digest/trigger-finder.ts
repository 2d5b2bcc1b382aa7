/**
 * Naming the formats' literal triggers in text, fast and without allocating: the scanner runs this
 * over the lines the byte filter (`TriggerFilter`) found a trigger in, and over every line while a
 * parser is engaged. Two things keep V8's engine fast here: triggers sharing a prefix are merged
 * into a trie (`FAIL(?:ED)?`), so each position is tried against one alternative per first byte; and
 * triggers that start with a lower-case letter get a pattern of their own, because mixing such
 * common first bytes into the main pattern defeats the engine's skipping ahead (measured: a
 * four-fold slowdown).
 */

/**
 * Finds triggers (Latin-1 text) in one text after another. After `begin` and each `advance`, `start`
 * is where the next trigger starts (-1 when none is left) and `trigger` is that trigger, the longest
 * one that matches there. Matches are found with `RegExp.test`, which allocates nothing (`exec` would
 * allocate a result per match), then named by their last character.
 */
export class TriggerFinder {
  start = -1;
  trigger = "";
  private text = "";
  private readonly patterns: RegExp[];
  /** Per pattern: its pending match's start (-1 when it has none left) and trigger. */
  private readonly starts: number[];
  private readonly triggers: string[];
  /** Triggers by the code of their last character, longest first. */
  private readonly byLastCharacter: string[][] = Array.from({ length: 256 }, () => []);

  constructor(triggers: readonly string[]) {
    const unique = [...new Set(triggers)].filter((trigger) => trigger.length > 0);
    for (const trigger of [...unique].sort((left, right) => right.length - left.length)) {
      this.byLastCharacter[trigger.charCodeAt(trigger.length - 1) & 0xff].push(trigger);
    }
    this.patterns = triggerPatterns(unique);
    this.starts = this.patterns.map(() => -1);
    this.triggers = this.patterns.map(() => "");
  }

  /** Starts on a new text: finds its first trigger. */
  begin(text: string): void {
    this.text = text;
    for (let pattern = 0; pattern < this.patterns.length; pattern++) {
      this.patterns[pattern].lastIndex = 0;
      this.search(pattern);
    }
    this.pickEarliest();
  }

  /** Moves to the trigger after the current one. */
  advance(): void {
    for (let pattern = 0; pattern < this.patterns.length; pattern++) {
      if (this.starts[pattern] === this.start) this.search(pattern);
    }
    this.pickEarliest();
  }

  private search(pattern: number): void {
    const regex = this.patterns[pattern];
    const from = regex.lastIndex;
    if (!regex.test(this.text)) {
      this.starts[pattern] = -1;
      return;
    }
    const end = regex.lastIndex;
    for (const trigger of this.byLastCharacter[this.text.charCodeAt(end - 1) & 0xff]) {
      const start = end - trigger.length;
      if (start >= from && this.text.startsWith(trigger, start)) {
        this.starts[pattern] = start;
        this.triggers[pattern] = trigger;
        return;
      }
    }
    this.starts[pattern] = -1; // Unreachable: every match ends a trigger.
  }

  private pickEarliest(): void {
    this.start = -1;
    for (let pattern = 0; pattern < this.patterns.length; pattern++) {
      const start = this.starts[pattern];
      if (start !== -1 && (this.start === -1 || start < this.start)) {
        this.start = start;
        this.trigger = this.triggers[pattern];
      }
    }
  }
}

/** Patterns (global, over Latin-1 text) that together match every trigger; each match is a whole trigger. */
function triggerPatterns(triggers: readonly string[]): RegExp[] {
  const lowerInitial = triggers.filter((trigger) => /^[a-z]/.test(trigger));
  const otherInitial = triggers.filter((trigger) => !/^[a-z]/.test(trigger));
  return [otherInitial, lowerInitial]
    .filter((group) => group.length > 0)
    .map((group) => new RegExp(trieSource(group), "g"));
}

interface TrieNode {
  /** A trigger ends here. */
  end: boolean;
  children: Map<string, TrieNode>;
}

/** A source matching any of `words`, preferring the longest at a given position. */
function trieSource(words: string[]): string {
  const root: TrieNode = { end: false, children: new Map() };
  for (const word of words) {
    let node = root;
    for (const character of word) {
      let child = node.children.get(character);
      if (!child) {
        child = { end: false, children: new Map() };
        node.children.set(character, child);
      }
      node = child;
    }
    node.end = true;
  }
  return alternatives(root).join("|");
}

function alternatives(node: TrieNode): string[] {
  return [...node.children].map(([character, child]) => escapeCharacter(character) + continuation(child));
}

function continuation(node: TrieNode): string {
  const options = alternatives(node);
  if (options.length === 0) return "";
  const group = `(?:${options.join("|")})`;
  return node.end ? `${group}?` : options.length === 1 ? options[0] : group;
}

/** One Latin-1 character as a regular-expression source. */
function escapeCharacter(character: string): string {
  const code = character.charCodeAt(0);
  if (code >= 0x80 || code < 0x20) return `\\x${code.toString(16).padStart(2, "0")}`;
  return /[\\^$.*+?()[\]{}|/-]/.test(character) ? `\\${character}` : character;
}
