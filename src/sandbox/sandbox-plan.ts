/**
 * What an operating-system sandbox lets one command touch, and the bubblewrap command line that
 * enforces it (pure). The whole file system is visible read-only; then each mount of the plan, in
 * order, makes a path writable, read-only again, or hidden (an empty folder in its place), so a later
 * mount refines an earlier one (the temporary folder writable, the user's repository in it read-only).
 * Every command also gets its own PID namespace tied to its parent: when the command's first process
 * ends, or loopwright itself dies (even by kill -9), the kernel kills every process it started, daemons
 * that left the process group or dropped loopwright's environment tags included.
 * The network is the host's: bubblewrap can only cut it off entirely, and loopback must keep working
 * for a model server on 127.0.0.1.
 */

export type SandboxMount = { access: "write" | "read" | "hide"; path: string };

export interface SandboxPlan {
  /** Applied in order over a read-only view of the whole file system; absolute paths. */
  mounts: SandboxMount[];
}

/** Nothing writable: a command that only reads. */
export const readOnlyPlan: SandboxPlan = { mounts: [] };

const flags = { write: "--bind", read: "--ro-bind" } as const;

/**
 * The `bwrap` arguments (without the executable) that run `command` under `plan` in `cwd`. Paths are
 * taken as given: resolve symbolic links and drop missing paths first (see `resolvePlan`).
 */
export function bubblewrapArguments(plan: SandboxPlan, cwd: string, command: readonly string[]): string[] {
  const argv = ["--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev", "--proc", "/proc"];
  for (const mount of plan.mounts) {
    if (mount.access === "hide") argv.push("--tmpfs", mount.path);
    else argv.push(flags[mount.access], mount.path, mount.path);
  }
  argv.push("--unshare-pid", "--die-with-parent", "--chdir", cwd, "--", ...command);
  return argv;
}
