/**
 * The scope screen: which changed files the loop may not touch (`scope.allow`, `scope.deny`) and which
 * are protected (`scope.protect`: flagged to the verifier, never auto-passed). Pure.
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
  const allowed = picomatch(scope.allow.length > 0 ? scope.allow : ["**"], options);
  const denied = scope.deny.map((pattern) => ({ pattern, matches: picomatch(pattern, options) }));
  const isProtected = scope.protect.length > 0 ? picomatch(scope.protect, options) : () => false;
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
