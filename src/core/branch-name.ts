/**
 * Branch names as git accepts them (`git check-ref-format --branch`), decided without running git, plus
 * the names git accepts but that would surprise: a leading `-` (git reads it as an option) and a
 * `refs/` prefix (`refs/heads/main` would become `refs/heads/refs/heads/main`).
 */

/** Characters git never allows in a ref name, besides control characters and DEL. */
const forbiddenCharacter = /[ ~^:?*[\\]/;

function firstForbiddenCharacter(name: string): string | undefined {
  for (const character of name) {
    const code = character.charCodeAt(0);
    if (code < 0x20 || code === 0x7f || forbiddenCharacter.test(character)) return character;
  }
  return undefined;
}

/**
 * Why `name` cannot be a loop's branch, as a short phrase, or undefined when it can. Follows git's
 * `check_refname_format` for `refs/heads/<name>` and `--branch`'s extra rules.
 */
export function branchNameProblem(name: string): string | undefined {
  if (name === "") return "must not be empty";
  if (name.startsWith("-")) return "must not start with '-' (git would read it as an option)";
  if (name === "HEAD" || name === "@") return `'${name}' is not a branch name`;
  if (name.startsWith("refs/")) {
    return "must not start with 'refs/' (write the short name: 'main', not 'refs/heads/main')";
  }
  const character = firstForbiddenCharacter(name);
  if (character) return `must not contain ${describeCharacter(character)}`;
  if (name.includes("@{")) return "must not contain '@{'";
  if (name.includes("..")) return "must not contain '..'";
  if (name.startsWith("/") || name.endsWith("/")) return "must not start or end with '/'";
  if (name.includes("//")) return "must not contain '//'";
  if (name.endsWith(".")) return "must not end with '.'";
  for (const component of name.split("/")) {
    if (component.startsWith(".")) return "no part between slashes may start with '.'";
    if (component.endsWith(".lock")) return "no part between slashes may end with '.lock'";
  }
  return undefined;
}

function describeCharacter(character: string): string {
  if (character === " ") return "spaces";
  const code = character.charCodeAt(0);
  if (code < 0x20 || code === 0x7f) return "control characters";
  return `'${character}'`;
}
