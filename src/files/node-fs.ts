/**
 * node:fs, taken from its CommonJS object instead of imported as an ES module. Importing `node:fs`
 * from an ES module makes Node build the module's namespace: it reads every export, `fs.promises`
 * included, which loads fs/promises and its streams at start-up whether or not they are used (about
 * 7 ms per process on a 2-core machine, a tenth of a bare `node -e 0`; measured with hyperfine on
 * `import "node:fs"` against an empty module). Every command, every hook pays it once. So the code
 * imports fs from here: the same functions, with node:fs's own types. `import type` from node:fs is
 * free and stays as it is.
 */
const fs = process.getBuiltinModule("node:fs");

export const {
  accessSync,
  appendFileSync,
  chmodSync,
  close,
  closeSync,
  constants,
  copyFileSync,
  createReadStream,
  createWriteStream,
  existsSync,
  fstatSync,
  ftruncateSync,
  fsyncSync,
  futimesSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  watch,
  write,
  writeFileSync,
  writeSync,
} = fs;
