/**
 * The byte filter's data made by the build (trigger-filter-data.ts): it holds exactly the tables and
 * module bytes the code builds for the real triggers, and a process whose file is missing, damaged,
 * from other code or for other triggers builds them itself and digests every log as before.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { digestText, digestTriggers } from "../src/gates/digest/digest-parser.ts";
import { minimalTriggers } from "../src/gates/digest/trigger-filter.ts";
import {
  filterDataFileName,
  readFilterData,
  writeFilterData,
} from "../src/gates/digest/trigger-filter-data.ts";
import { filterModuleBytes } from "../src/gates/digest/trigger-filter-module.ts";
import { teddyTables } from "../src/gates/digest/trigger-filter-tables.ts";

const source = new URL("../src/", import.meta.url).pathname;
const logs = new URL("./fixtures/digest/logs/", import.meta.url).pathname;
const logTexts = readdirSync(logs)
  .filter((name) => name.endsWith(".txt"))
  .sort()
  .map((name) => readFileSync(join(logs, name), "utf8"));
const triggers = minimalTriggers(digestTriggers());
const folders: string[] = [];
after(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A copy of src/ whose digest folder holds the data file for `fileTriggers`; returns that folder. */
function sourceCopy(fileTriggers: readonly string[] = triggers): string {
  const root = mkdtempSync(join(tmpdir(), "lw-filter-data-"));
  folders.push(root);
  cpSync(source, join(root, "src"), { recursive: true });
  const digestFolder = join(root, "src", "gates", "digest");
  writeFilterData(fileTriggers, pathToFileURL(`${digestFolder}/`));
  return digestFolder;
}

/** In a fresh Node running the copy: whether it read its data file, and the digest of every log. */
function digestsIn(digestFolder: string): { read: boolean; digests: unknown[] } {
  const script = `
    import { digestText } from ${JSON.stringify(join(digestFolder, "digest-parser.ts"))};
    import { precomputedFilterData } from ${JSON.stringify(join(digestFolder, "trigger-filter-data.ts"))};
    import { readFileSync } from "node:fs";
    const texts = JSON.parse(readFileSync(0, "utf8"));
    const digests = texts.map((text) => digestText(text, { root: "/project" }));
    process.stdout.write(JSON.stringify({ read: precomputedFilterData() !== null, digests }));`;
  const output = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
    input: JSON.stringify(logTexts),
    encoding: "utf8",
  });
  return JSON.parse(output);
}

const expected = JSON.parse(JSON.stringify(logTexts.map((text) => digestText(text, { root: "/project" }))));

describe("the byte filter's data made by the build", () => {
  it("holds the tables and module bytes the code builds, for the real triggers", () => {
    const folder = sourceCopy();
    const data = readFilterData(pathToFileURL(`${folder}/`));
    assert.ok(data, "the file written was read back");
    assert.equal(data.triggers, triggers.join("\n"));
    assert.ok(triggers.length > 40, "the real triggers, every format's");
    assert.deepEqual(Buffer.from(data.tables), Buffer.from(teddyTables(triggers)));
    assert.deepEqual(Buffer.from(data.relaxedModule), Buffer.from(filterModuleBytes(true)));
    assert.deepEqual(Buffer.from(data.plainModule), Buffer.from(filterModuleBytes(false)));
  });

  it("is used by a fresh process, whose digests are those of a process that builds them", () => {
    const result = digestsIn(sourceCopy());
    assert.equal(result.read, true);
    assert.deepEqual(result.digests, expected);
  });

  it("when missing, the process builds them: the same digests", () => {
    const folder = sourceCopy();
    rmSync(join(folder, filterDataFileName));
    const result = digestsIn(folder);
    assert.equal(result.read, false);
    assert.deepEqual(result.digests, expected);
  });

  it("when damaged or cut short, the process builds them: the same digests", () => {
    for (const damage of ["flip", "truncate"] as const) {
      const folder = sourceCopy();
      const file = join(folder, filterDataFileName);
      const text = readFileSync(file, "utf8");
      const stored = JSON.parse(text);
      // Nibble tables of zeros would let the filter miss a trigger, were the file used.
      stored.nibbleTables = Buffer.alloc(Buffer.from(stored.nibbleTables, "base64").length).toString(
        "base64",
      );
      writeFileSync(file, damage === "flip" ? JSON.stringify(stored) : text.slice(0, text.length / 2));
      const result = digestsIn(folder);
      assert.equal(result.read, false, damage);
      assert.deepEqual(result.digests, expected, damage);
    }
  });

  it("when made by other code, the process builds them: the same digests", () => {
    const folder = sourceCopy();
    appendFileSync(join(folder, "trigger-filter-tables.ts"), "\n// another version\n");
    const result = digestsIn(folder);
    assert.equal(result.read, false);
    assert.deepEqual(result.digests, expected);
  });

  it("when made for other triggers, the process builds its own: the same digests", () => {
    const result = digestsIn(
      sourceCopy(triggers.filter((trigger) => trigger !== "FAIL" && trigger !== "not ok")),
    );
    assert.equal(result.read, true);
    assert.deepEqual(result.digests, expected);
  });
});
