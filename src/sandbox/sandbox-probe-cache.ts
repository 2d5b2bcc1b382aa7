/**
 * The sandbox probe's "available" answer, kept in the home between commands and used only while
 * everything that decides it is as it was when bwrap last succeeded: the `bwrap` that PATH finds (its
 * path and file identity, size, times and mode: a replaced or re-permissioned binary is another one),
 * the probe's own arguments, the boot, the kernel's namespace and AppArmor switches, the security
 * modules, this process's credentials, capabilities, seccomp and no-new-privileges state, its
 * namespaces, limits and mount table. Only a success is kept: a refusal is probed again every time, so
 * a wrong entry can at worst say "available" where the turn's own bwrap then fails loudly, never run a
 * command outside the sandbox that could have run inside it. An entry that cannot be read, or any of
 * these facts that cannot be read (none is on a machine where /proc is missing), means: probe.
 */

import { join } from "node:path";
import { makeFolders } from "../files/make-folders.ts";
import {
  accessSync,
  constants,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "../files/node-fs.ts";
import { readRegularFileSync } from "../files/read-regular-file.ts";
import { loopwrightHome } from "../paths.ts";

/** The files whose text decides whether bwrap can make its sandbox here; a missing one reads as `-`. */
const decidingFiles = [
  "/proc/sys/kernel/random/boot_id",
  "/proc/sys/kernel/unprivileged_userns_clone",
  "/proc/sys/user/max_user_namespaces",
  "/proc/sys/user/max_pid_namespaces",
  "/proc/sys/user/max_mnt_namespaces",
  "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
  "/proc/sys/kernel/unprivileged_userns_apparmor_policy",
  "/sys/kernel/security/lsm",
  "/sys/kernel/security/apparmor/revision",
  "/sys/fs/selinux/enforce",
  "/proc/self/attr/current",
  "/proc/self/limits",
  "/proc/self/mountinfo",
];

/** The dynamic loader's files: which libraries bwrap gets (an `ldconfig` after an upgrade rewrites the cache). */
const loaderFiles = ["/etc/ld.so.cache", "/etc/ld.so.preload"];

/** The lines of /proc/self/status that decide it (credentials, capabilities, seccomp). */
const decidingStatus =
  /^(Uid|Gid|Groups|CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp|Seccomp_filters):/;

const namespaces = ["user", "mnt", "pid", "ipc", "uts", "net", "cgroup"];

/**
 * What decides the probe's answer for `probeArguments` here, as one text; undefined when it cannot be
 * known (no bwrap on PATH, no /proc): then the probe runs.
 */
export function probeKey(
  probeArguments: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  try {
    const bwrap = onPath("bwrap", env.PATH ?? "");
    if (!bwrap) return undefined;
    const stats = statSync(bwrap, { bigint: true });
    const status = readFileSync("/proc/self/status", "utf8")
      .split("\n")
      .filter((line) => decidingStatus.test(line));
    if (status.length === 0) return undefined;
    return [
      `bwrap ${bwrap} ${stats.dev}:${stats.ino} ${stats.size} ${stats.mode} ${stats.uid}:${stats.gid} ${stats.mtimeNs} ${stats.ctimeNs}`,
      `arguments ${JSON.stringify(probeArguments)}`,
      // What the dynamic loader reads before bwrap runs: its variables, and its cache and preload list.
      ...Object.keys(env)
        .filter((name) => name.startsWith("LD_") || name === "GCONV_PATH")
        .sort()
        .map((name) => `env ${name}=${env[name]}`),
      ...loaderFiles.map((file) => `${file} ${identity(file)}`),
      ...status,
      ...namespaces.map((name) => `ns ${name} ${readlinkSync(`/proc/self/ns/${name}`)}`),
      ...decidingFiles.map((file) => `${file}\n${readOrDash(file)}`),
    ].join("\n");
  } catch {
    return undefined;
  }
}

/** Whether the home holds a success recorded under exactly `key`. */
export function probeSucceededBefore(key: string, home: string = loopwrightHome()): boolean {
  // Only a small regular file, not through a link: a FIFO planted there (a gate can write the home) would
  // block this synchronous read, and every command with it.
  const read = readRegularFileSync(entryPath(home), { maximumBytes: 64 * 1024, noFollow: true });
  if (!read.ok) return false;
  try {
    const entry = JSON.parse(read.text) as { key?: unknown; available?: unknown };
    return entry.key === key && entry.available === true;
  } catch {
    return false;
  }
}

/**
 * Records a success under `key`, whole or not at all (a temporary file renamed), private to the user (the
 * home is trusted like the store). A failure to write changes nothing: the next command probes.
 */
export function recordProbeSuccess(key: string, home: string = loopwrightHome()): void {
  try {
    makeFolders(home, 0o700);
    makeFolders(join(home, "cache"), 0o700);
    const path = entryPath(home);
    // Created, never opened through a link someone planted at a name it could guess.
    const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    writeFileSync(temporary, JSON.stringify({ key, available: true }), { mode: 0o600, flag: "wx" });
    renameSync(temporary, path);
  } catch {
    // Not kept: the next command probes again.
  }
}

/**
 * Drops the kept success, if any (a sandboxed command failed: the success may be stale, in a way the key
 * cannot see, such as a library bwrap loads). The next command probes again; a failure to remove it
 * changes nothing more.
 */
export function forgetProbeSuccess(home: string = loopwrightHome()): void {
  try {
    rmSync(entryPath(home), { force: true });
  } catch {
    // Left as it is: its key decides.
  }
}

function entryPath(home: string): string {
  return join(home, "cache", "sandbox-probe.json");
}

/** A file's identity and times (`-` when it is missing). */
function identity(file: string): string {
  const stats = statSync(file, { bigint: true, throwIfNoEntry: false });
  return stats ? `${stats.dev}:${stats.ino} ${stats.size} ${stats.mtimeNs} ${stats.ctimeNs}` : "-";
}

function readOrDash(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "-";
  }
}

/**
 * The file execvp runs for `name` with `path`: the first regular file this process may execute, in the
 * folders' order. A relative folder (it depends on the working folder) gives undefined: no entry then.
 */
function onPath(name: string, path: string): string | undefined {
  const folders = path.split(":");
  if (folders.some((folder) => !folder.startsWith("/"))) return undefined;
  for (const folder of folders) {
    const candidate = join(folder, name);
    if (!statSync(candidate, { throwIfNoEntry: false })?.isFile()) continue;
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not executable by this process: execvp goes on to the next folder too.
    }
  }
  return undefined;
}
