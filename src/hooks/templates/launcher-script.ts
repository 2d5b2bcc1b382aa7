/**
 * The hook launcher: a small sh script with absolute paths to a Node.js that `init claude` checked and
 * to loopwright's entry, so that hooks run the same whatever `node` comes first on the user's PATH. If
 * either disappears, it still answers Claude Code in JSON with exit 0 and tells the user.
 *
 * For `stop`, and `prompt` when the state names open work, it starts the hook's `git status` itself,
 * in `$CLAUDE_PROJECT_DIR` (else the current folder) when that folder holds `.git` and `loop.yaml`,
 * and pipes its output to Node on descriptor 3: git runs while Node starts, and Node needs no
 * node:child_process. Node uses it only when it is exactly the status it would run (see
 * status-process.ts); the script decides with sh builtins alone (no process is started to decide),
 * and starts none where Node would not read it (hook mode off, an engine session). Its answer never
 * waits for that git: the script waits for Node alone, and git, which holds none of Claude Code's
 * pipes, is killed once Node has exited. Under dash with /proc (Debian, Ubuntu) the script execs Node
 * as soon as git's watcher is forked (\`pipedPart\`); any other sh reads git's pid before Node starts
 * (\`wrappedPart\`).
 * Pure.
 */
import { gitSettings, neutralisingArguments, repositoryLocatingVariables } from "../../git/git.ts";
import {
  launcherLifelineDescriptor,
  launcherStatusSignature,
  launcherStatusTrailer,
  launcherStatusVariables,
  statusArguments,
} from "../review/status-process.ts";

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
  const gitCommand = ["--no-pager", ...neutralisingArguments, ...statusArguments].map(shellQuote).join(" ");
  const settings = Object.entries(gitSettings)
    .map(([name, value]) => `${name}=${shellQuote(value)}`)
    .join(" ");
  const parts: LauncherParts = { assignments, gitCommand, settings };
  // The plugin's hooks step aside where the project's own are installed (hook-main.ts): no git for them.
  const stepAside =
    options.env?.LOOPWRIGHT_HOOK_SOURCE === "plugin" ? ' && [ ! -e "$folder/.loopwright/hook" ]' : "";
  return `#!/bin/sh
# loopwright's hook launcher, written by \`loopwright init claude\`: runs the hooks with the Node.js
# ${options.nodeVersion} pinned below, whatever \`node\` comes first on PATH.
node=${shellQuote(options.node)}
entry=${shellQuote(options.entry)}
if [ -x "$node" ] && [ -f "$entry" ]; then
  # The built package's CommonJS entry for hooks, where it has one: Node starts it without its ES module
  # loader (dist/hooks/hook-entry.cjs, which hands anything but the built hook back to the entry).
  hook_entry=\${entry%/bin/loopwright.js}/dist/hooks/hook-entry.cjs
  [ -f "$hook_entry" ] || hook_entry=$entry
  # A stop, and a prompt with open work, read one \`git status\`: started here, it runs while Node
  # starts; Node reads it on descriptor 3 if it is exactly the one it would run, else runs its own.
  folder=\${CLAUDE_PROJECT_DIR:-$PWD}
  early=
  # None where Node would not read it: inside an engine session, or with hook mode off (the kill switch).
  [ "\${LOOPWRIGHT_ENGINE_SESSION-}" = 1 ] || [ -e "$folder/.loopwright/off" ] ||
  case $1 in
    stop) early=1 ;;
    prompt)
      while IFS= read -r line; do
        case $line in '  "work": '*) early=1; break ;; esac
      done 2>/dev/null <"$folder/.loopwright/state.json" ;;
  esac
  git=
  case $folder in
    /*) if [ -n "$early" ] && [ -e "$folder/.git" ] && [ -f "$folder/loop.yaml" ]${stepAside}; then
      # The first git in an absolute folder of PATH, as loopwright finds it.
      set -f; IFS=:
      for directory in $PATH; do
        case $directory in /*) if [ -x "$directory/git" ]; then git=$directory/git; break; fi ;; esac
      done
      unset IFS; set +f
    fi ;;
  esac
  # Descriptor 4 keeps the hook's stdin for Node (\`command\`: a closed stdin is no fatal error).
  if [ -n "$git" ] && { command exec 4<&0; } 2>/dev/null; then
    # dash, whose here-documents are pipes (named by its executable: others may write a temporary
    # file), with a /proc that names a process's children in this shell's own pid namespace (not a
    # parent namespace's, as \`unshare -p\` without its own /proc leaves it), execs Node beside git's
    # watcher; any other sh runs the wrapper. (\`test\` is dash's builtin: /proc/self is the shell.)
    if [ -r /proc/thread-self/children ] &&
      { [ /proc/self/exe -ef /bin/dash ] || [ /proc/self/exe -ef /usr/bin/dash ]; } 2>/dev/null &&
      [ /proc/self -ef "/proc/$$" ]; then
${pipedPart(parts)}    fi
${wrappedPart(parts)}  fi
  LOOPWRIGHT_HOOK_LAUNCHER="$0" ${assignments}exec "$node" "$hook_entry" hook "$@"
fi
printf '%s\\n' ${shellQuote(gone)}
exit 0
`;
}

/** What both launcher shapes write: the git command, its environment, Node's variables. */
interface LauncherParts {
  assignments: string;
  gitCommand: string;
  settings: string;
}

/**
 * Node is exec'd as soon as git's watcher is forked: no shell waits for Node and no fork is in its
 * way. Needs dash (its here-documents are pipes) and /proc (/proc/self/fd, /proc/thread-self/children).
 */
function pipedPart({ assignments, gitCommand, settings }: LauncherParts): string {
  const variables = launcherStatusVariables;
  return `      # Two pipes, from empty here-documents (dash makes each a pipe, its write end closed) and a second
      # open of each through /proc: git's output, read by Node on descriptor 3 and written on 7; and a
      # lifeline that Node alone holds open for writing (6, closed by Node once it has read or dropped
      # git's output), read by the watcher on 5. The watcher, in
      # the background (stdout and stderr /dev/null: it holds none of Claude Code's pipes), runs git's
      # subshell, which writes git's exit code after its output, then waits for the lifeline's end:
      # Node's exit, however it comes (a signal that ends the hook, Claude Code's timeout, reaches Node
      # itself), ends git's subshell, whose trap ends git if it still runs. Each kill is of the killer's
      # own unreaped child (the watcher never \`wait\`s; the subshell's is named by
      # /proc/thread-self/children just before): its pid cannot be another process's.
      exec 3<<'EOF' 5<<'EOF'
EOF
EOF
      exec 6>/proc/self/fd/5 7>/proc/self/fd/3
      {
        exec 3<&- 6>&-
        unset ${repositoryLocatingVariables.join(" ")}
        {
          # Its only child is git (even one forked an instant before this trap runs).
          trap '${killOwnChildren} exit 143' TERM
          ${settings} "$git" -C "$folder" ${gitCommand} </dev/null &
          wait "$!"
          printf '${launcherStatusTrailer.replace("\n", "\\n")}%d\\n' "$?"
        } >&7 5<&- 7>&- &
        exec 7>&-
        read -r _ <&5
        kill -s TERM "$!"
      } >/dev/null 2>&1 4<&- &
      LOOPWRIGHT_HOOK_LAUNCHER="$0" ${variables.folder}="$folder" ${variables.git}="$git" \\
        ${variables.signature}=${shellQuote(launcherStatusSignature())} ${variables.lifeline}=${launcherLifelineDescriptor} \\
        ${assignments}exec "$node" "$hook_entry" hook "$@" 4<&- 5<&- 7>&-
`;
}

/**
 * Any sh: git's pid, written by a sh that then execs it, is read off the pipe by a wrapper before
 * Node starts (an extra sh and a wait in Node's way: ~16–20 ms a hook on a 2-core machine).
 */
function wrappedPart({ assignments, gitCommand, settings }: LauncherParts): string {
  const variables = launcherStatusVariables;
  return `    # git runs outside this script's job (its subshell exits at once), so that nothing waits for it:
    # it first writes its pid (a sh that then execs git), which the wrapper below reads off the pipe
    # before Node starts; once Node has exited, the wrapper kills git (used or not) and exits with
    # Node's status. Its stderr is /dev/null: it holds no pipe of Claude Code's.
    {
      unset ${repositoryLocatingVariables.join(" ")}
      {
        ${settings} /bin/sh -c 'printf "%d\\n" "$$" && exec "$@"' sh "$git" -C "$folder" ${gitCommand} </dev/null
        printf '${launcherStatusTrailer.replace("\n", "\\n")}%d\\n' "$?"
      } &
    } 2>/dev/null 4<&- | {
      hook=
      stop=
      trap 'stop=1; kill -s TERM "$hook" 2>/dev/null' HUP INT TERM
      IFS= read -r launched || launched=
      # (dash gives an asynchronous command /dev/null as stdin before its own redirections; Node's
      # command redirects 3 again, as ksh93's and mksh's \`exec 3<&0\` is close-on-exec)
      exec 3<&0 0</dev/null
      LOOPWRIGHT_HOOK_LAUNCHER="$0" ${variables.folder}="$folder" ${variables.git}="$git" \\
        ${variables.signature}=${shellQuote(launcherStatusSignature())} \\
        ${assignments}"$node" "$hook_entry" hook "$@" 3<&3 0<&4 4<&- &
      hook=$!
      exec 3<&- 4<&-
      [ -z "$stop" ] || kill -s TERM "$hook" 2>/dev/null
      while :; do
        wait "$hook"
        status=$?
        kill -s 0 "$hook" 2>/dev/null || break
      done
      case $launched in '' | *[!0-9]*) ;; *) kill -s TERM "$launched" 2>/dev/null ;; esac
      exit "$status"
    } &
    # Node is this script's grandchild, not the script itself: a signal that ends the hook (Claude
    # Code's timeout) is passed on to it through the wrapper, as it reached Node when the script exec'd it.
    wrapper=$!
    trap 'kill -s TERM "$wrapper" 2>/dev/null' HUP INT TERM
    while :; do
      wait "$wrapper"
      status=$?
      kill -s 0 "$wrapper" 2>/dev/null || break
    done
    exit "$status"
`;
}

/**
 * sh that sends TERM to every child of this shell it has not yet reaped, as /proc/thread-self/children
 * names them: the shell is single-threaded and reaps only in \`wait\`, so none of those pids can be
 * another process's by the time \`kill\` runs. For a trap (no single quote).
 */
const killOwnChildren =
  'read -r children </proc/thread-self/children; [ -z "$children" ] || kill -s TERM $children;';

export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
