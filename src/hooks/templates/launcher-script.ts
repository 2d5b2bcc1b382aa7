/**
 * The hook launcher: a small sh script with absolute paths to a Node.js that `init claude` checked and
 * to loopwright's entry, so that hooks run the same whatever `node` comes first on the user's PATH. If
 * either disappears, it still answers Claude Code in JSON with exit 0 and tells the user. Pure.
 */
export function launcherScript(options: {
  node: string;
  nodeVersion: string;
  entry: string;
  /** Extra environment for the hooks, e.g. the plugin's reviewer name. */
  env?: Record<string, string>;
}): string {
  const assignments = Object.entries(options.env ?? {})
    .map(([name, value]) => `${name}=${shellQuote(value)} `)
    .join("");
  const gone = JSON.stringify({
    systemMessage: `loopwright: the Node.js (${options.node}) or the loopwright (${options.entry}) that hook mode was set up with is gone, so nothing was checked. Run \`loopwright init claude\` again.`,
  });
  return `#!/bin/sh
# loopwright's hook launcher, written by \`loopwright init claude\`: runs the hooks with the Node.js
# ${options.nodeVersion} pinned below, whatever \`node\` comes first on PATH.
node=${shellQuote(options.node)}
entry=${shellQuote(options.entry)}
if [ -x "$node" ] && [ -f "$entry" ]; then
  LOOPWRIGHT_HOOK_LAUNCHER="$0" ${assignments}exec "$node" "$entry" hook "$@"
fi
printf '%s\\n' ${shellQuote(gone)}
exit 0
`;
}

export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
