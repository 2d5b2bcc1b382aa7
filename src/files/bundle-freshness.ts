/**
 * Whether a bundle of dist/'s modules (the CLI's, the read-only commands') still holds their code, so
 * that bin/loopwright.js may run it instead of them. Its manifest, written when it was bundled, names
 * each module with its size then and a digest of all their contents.
 *
 * A size that differs says "changed" at once (a rebuild by tsc alone, most edits). Equal sizes say
 * nothing (a same-length edit, a hand patch of dist/), and times alone say nothing either: npm's
 * extraction, `cp -r` and a git checkout write one build's files with new times in their own order,
 * and a clock set back gives an edit an older time. So, as git's index does, the contents are compared
 * with the digest once, and the sizes, modification and change times and inodes they were found with
 * are kept (a stamp, in Node's compile cache folder): while every module keeps them (a change time
 * only the kernel sets, to "now"), the stamp vouches for the contents,
 * and the check costs one stat a module and one small read. Any other size or time, an edit's, a copy's,
 * an install's, makes the contents be read and compared again (~480 modules, 1.9 MB: a few ms, once).
 *
 * A stamp is kept only when every module's time is older than the file system's step (see `racy`): a
 * module written again within that step of its time could keep both size and time.
 * Without a compile cache folder (turned off, not writable) the contents are compared at every run.
 *
 * Builtins come from process.getBuiltinModule (see node-fs.ts); node:crypto only where contents are
 * compared. Nothing here throws.
 */
import { nameHash } from "./code-cache-file.ts";

const fs = process.getBuiltinModule("node:fs");
const { join } = process.getBuiltinModule("node:path");

/** What a bundle's manifest says of the modules it holds. */
export interface BundleManifest {
  /** Each module, by its path relative to the bundle's folder, with its size in bytes when bundled. */
  modules: Readonly<Record<string, number>>;
  /** `modulesDigest` of them when bundled. */
  digest: string;
}

/**
 * Whether a file's time `mtimeMs` is too recent for a stamp to vouch for it: a later write could get
 * the same time. A time in whole seconds may come from a file system that keeps 1 or 2 s steps (FAT,
 * HFS+, ext3); finer ones advance with the kernel's clock tick (a few ms).
 */
function racy(mtimeMs: number, now: number): boolean {
  return mtimeMs > now - (mtimeMs % 1000 === 0 ? 2000 : 100);
}

/** Whether every module of `manifest` holds what it held when the bundle at `bundleFile` was made. */
export function bundleIsCurrent(bundleFile: string, manifest: BundleManifest): boolean {
  const folder = join(bundleFile, "..");
  // Paths joined as text, and statSync without options (it throws for a missing file): for ~480
  // modules, URLs or an options object cost more than the system calls.
  let seen = `${manifest.digest}\n`;
  const now = Date.now();
  let anyRacy = false;
  try {
    for (const module in manifest.modules) {
      const stats = fs.statSync(`${folder}/${module}`);
      if (stats.size !== manifest.modules[module]) return false;
      // The change time too: a tool can put a module's modification time back after a same-size edit
      // (`touch -r`, `cp -p`, `rsync -a`, an archive's fixed dates), never its change time.
      seen += `${stats.mtimeMs} ${stats.ctimeMs} ${stats.ino}\n`;
      anyRacy ||= racy(stats.mtimeMs, now) || racy(stats.ctimeMs, now);
    }
  } catch {
    return false;
  }
  const folderForStamps = process.getBuiltinModule("node:module").getCompileCacheDir?.();
  const stamp = folderForStamps && join(folderForStamps, `loopwright-bundle-${nameHash(bundleFile)}`);
  if (stamp && readStamp(stamp, seen)) return true;
  try {
    if (modulesDigest(folder, Object.keys(manifest.modules)) !== manifest.digest) return false;
  } catch {
    // A module that cannot be read (its mode, an I/O error, deleted since its stat): the modules decide.
    return false;
  }
  if (stamp && !anyRacy) writeStamp(stamp, seen);
  return true;
}

/**
 * SHA-256 (hex) of the contents of `modules` (paths relative to `folder`), one after another in that
 * order (their sizes, checked first, tell where each ends); throws when one cannot be read.
 */
export function modulesDigest(folder: string, modules: readonly string[]): string {
  const hash = process.getBuiltinModule("node:crypto").createHash("sha256");
  for (const module of modules) hash.update(fs.readFileSync(`${folder}/${module}`));
  return hash.digest("hex");
}

/** Whether the stamp at `file` is a regular file that says `seen`. */
function readStamp(file: string, seen: string): boolean {
  let descriptor: number;
  try {
    const { O_RDONLY, O_NONBLOCK, O_NOFOLLOW } = fs.constants;
    descriptor = fs.openSync(file, O_RDONLY | O_NONBLOCK | O_NOFOLLOW);
  } catch {
    return false;
  }
  try {
    const stats = fs.fstatSync(descriptor);
    const expected = Buffer.from(seen, "latin1");
    if (!stats.isFile() || stats.size !== expected.length) return false;
    const text = Buffer.allocUnsafe(expected.length);
    return fs.readSync(descriptor, text, 0, text.length, 0) === text.length && text.equals(expected);
  } catch {
    return false;
  } finally {
    fs.closeSync(descriptor);
  }
}

/** Writes the stamp whole (a new file renamed over it) or not at all. */
function writeStamp(file: string, seen: string): void {
  const temporary = `${file}.${Math.random().toString(36).slice(2)}${process.pid}.tmp`;
  let created = false;
  try {
    fs.mkdirSync(join(file, ".."), { recursive: true });
    // Created exclusively: a symbolic link planted there is refused, never followed.
    const descriptor = fs.openSync(temporary, "wx", 0o600);
    created = true;
    try {
      fs.writeFileSync(descriptor, seen, "latin1");
    } finally {
      fs.closeSync(descriptor);
    }
    fs.renameSync(temporary, file);
  } catch {
    if (created) {
      try {
        fs.rmSync(temporary, { force: true });
      } catch {}
    }
  }
}
