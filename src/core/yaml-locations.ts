import { isAlias, isMap, isScalar, isSeq, LineCounter, type Node, parseDocument, visit } from "yaml";

/** A parsed YAML document as plain data that can still say on which line each value was written. */
export type LocatedYaml = {
  /** The document as plain data; `undefined` when the document holds nothing (empty or only comments). */
  data: unknown;
  /** 1-based line where the value at `path` is written (the key's line for a mapping entry); when part
   * of the path does not exist, the line of its nearest existing parent; line 1 as the last resort. */
  lineOf(path: readonly PropertyKey[]): number;
};

/** Either the located document, or the syntax problems that stopped it, each `<file>:<line>: invalid YAML: …`. */
export type LocatedYamlResult = { ok: true; yaml: LocatedYaml } | { ok: false; problems: string[] };

/** Bound on alias expansion: a billion-laughs bomb is a syntax problem, not an out-of-memory crash. */
const maxAliasCount = 100;

/** Parses one YAML document (YAML 1.2 core schema, duplicate keys rejected). Never throws for bad input. */
export function parseLocatedYaml(text: string, fileLabel: string): LocatedYamlResult {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false });
  const lineAt = (offset: number) => lineCounter.linePos(offset).line;
  const problems = document.errors.map(
    (error) =>
      `${fileLabel}:${lineAt(error.pos[0])}: invalid YAML: ${syntaxMessage(error.code, error.message, text.slice(error.pos[0]))}`,
  );
  visit(document, {
    Alias(_key, alias) {
      if (!alias.resolve(document)) {
        problems.push(
          `${fileLabel}:${lineAt(alias.range?.[0] ?? 0)}: invalid YAML: alias *${alias.source} has no anchor &${alias.source} before it`,
        );
      }
    },
  });
  if (problems.length > 0) return { ok: false, problems };

  let data: unknown;
  try {
    data = document.contents === null ? undefined : document.toJS({ maxAliasCount });
  } catch (error) {
    // The yaml library throws a ReferenceError when aliases would expand past the bound (an alias bomb),
    // and an Error for a document it parsed but cannot build (a YAML 1.1 merge key whose source is no map).
    if (!(error instanceof Error)) throw error;
    const problem =
      error instanceof ReferenceError
        ? `too many aliases (a document may expand at most ${maxAliasCount})`
        : `${error.message.charAt(0).toLowerCase()}${error.message.slice(1)}`;
    return { ok: false, problems: [`${fileLabel}: invalid YAML: ${problem}`] };
  }
  const lineOf = (path: readonly PropertyKey[]): number => {
    let node = document.contents as Node | null;
    let offset = node?.range?.[0] ?? 0;
    for (const segment of path) {
      const found = childAt(node, segment);
      if (!found) break;
      node = found.node;
      offset = found.offset;
    }
    return lineAt(offset);
  };
  return { ok: true, yaml: { data, lineOf } };

  function childAt(
    parent: Node | null,
    segment: PropertyKey,
  ): { node: Node | null; offset: number } | undefined {
    const resolved = isAlias(parent) ? (parent.resolve(document) ?? null) : parent;
    if (isMap(resolved)) {
      const pair = resolved.items.find((item) => keyText(item.key) === String(segment));
      if (!pair) return undefined;
      const key = pair.key as Node | null;
      const value = pair.value as Node | null;
      return { node: value, offset: key?.range?.[0] ?? value?.range?.[0] ?? 0 };
    }
    if (isSeq(resolved) && typeof segment === "number") {
      const item = resolved.items[segment] as Node | null | undefined;
      if (!item?.range) return undefined;
      return { node: item, offset: item.range[0] };
    }
    return undefined;
  }
}

function keyText(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return typeof key === "string" ? key : undefined;
}

/** The yaml library's messages, made to read as advice to the person editing the file. */
function syntaxMessage(code: string, message: string, textFromError: string): string {
  if (code === "MULTIPLE_DOCS") return "a file holds one document; remove the extra --- separator";
  if (code === "DUPLICATE_KEY") {
    const key = /^[^:,{}\n]*/.exec(textFromError)?.[0].trim();
    return `${key ? `'${key}' is` : "a field is"} set twice in the same mapping`;
  }
  const trimmed = message.trim();
  return trimmed.charAt(0).toLowerCase() + trimmed.slice(1);
}
