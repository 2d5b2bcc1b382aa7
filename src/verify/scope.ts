/**
 * The scope screen: which changed files the loop may not touch (`scope.allow`, `scope.deny`) and which
 * are protected (`scope.protect`: flagged to the verifier, never auto-passed). Globs are relative to the
 * repository root; a pattern without a slash (`.env*`) matches a file name in any folder. Pure.
 */
import picomatch from "picomatch";

export interface ScopeRules {
  allow: string[];
  deny: string[];
  protect: string[];
}

export interface ScopeScreen {
  violations: { file: string; rule: string }[];
  protectedFiles: string[];
}

export function screenScope(files: string[], scope: ScopeRules): ScopeScreen {
  const options = { dot: true };
  const allowed = picomatch((scope.allow.length > 0 ? scope.allow : ["**"]).map(rooted), options);
  const denied = scope.deny.map((pattern) => ({ pattern, matches: picomatch(rooted(pattern), options) }));
  const isProtected = scope.protect.length > 0 ? picomatch(scope.protect.map(rooted), options) : () => false;
  const violations: ScopeScreen["violations"] = [];
  const protectedFiles: string[] = [];
  for (const file of files) {
    const deniedBy = denied.find((rule) => rule.matches(file));
    if (deniedBy) violations.push({ file, rule: `denied by ${deniedBy.pattern}` });
    else if (!allowed(file)) violations.push({ file, rule: `not in allow (${scope.allow.join(", ")})` });
    if (isProtected(file)) protectedFiles.push(file);
  }
  return { violations, protectedFiles };
}

/** As in .gitignore: a pattern without a slash matches a name in any folder; a leading slash anchors it. */
function rooted(pattern: string): string {
  if (pattern.startsWith("/")) return pattern.slice(1);
  return pattern.includes("/") ? pattern : `**/${pattern}`;
}
