/**
 * Where the byte filter keeps what in its memory, shared by the filter, its tables and its
 * WebAssembly module (see trigger-filter.ts).
 */

/**
 * Bytes of each trigger the nibble tables look at; shorter triggers accept any byte past their end.
 * Three is quickest here (measured on the benchmark's log: half the time of five, whose tables no
 * longer fit the vector registers); the exact check after the tables sorts out what they let through.
 */
export const prefixBytes = 3;
/** Triggers are spread over 8 buckets (a bit each in the tables), so that each table stays selective. */
export const buckets = 8;
/** Where `collect` puts a vector of matches to read its lanes. */
export const scratchStart = 256;
/** Where the candidates of `collect` go in the module's memory (i32 each), and how many fit. */
export const foundStart = 1024;
export const foundCapacity = 4096;
/**
 * Where the exact check of each bucket is: a count (i32, padded to 8 bytes), then per trigger a mask
 * and a value (i64 each): the trigger's first 8 bytes at most, and the bytes that must equal them.
 */
export const checksStart = 20 * 1024;
export const checksPerBucket = 16;
export const checksBytes = 8 + checksPerBucket * 16;
/** Where the data starts in the module's memory: the tables and the candidates are below. */
export const dataStart = 32 * 1024;
/**
 * Bytes read past the end of the data (16 lanes, plus a trigger's first 8 bytes): data ends at least
 * this far before the memory does. Reads before the data are up to 16 bytes.
 */
export const filterPadding = 64;
