import { bitsRequired } from '../bits/bits-required.js';
import { MeasureStream } from './measure-stream.js';
import type { Stream } from './stream.js';

/**
 * Encodings of "which of N objects are in this packet": a sorted, duplicate-free list of indices
 * in [0, N - 1], N in [1, 65535], at most `maxCount` of them (maxCount in [0, 65535]; one above N
 * is allowed, it only widens the count field, and a read is still held to N entries).
 *
 * Every function here serves writing, reading and measuring. Writing and measuring return the
 * list given and throw RangeError for a list that breaks the contract. Reading returns a new
 * array no longer than maxCount, or [] once the read has failed; it rejects (via `s.fail`)
 * anything a writer could not have produced. None of these encodings aligns, so a measure is
 * exactly the bits a write produces.
 */

export const SUBSET_MAX_N = 65535;

/** The 2-bit tags {@link serializeSubset} writes before the encoding it chose. */
export const SUBSET_TAG_BITMASK = 0;
export const SUBSET_TAG_INDICES = 1;
export const SUBSET_TAG_SENTINEL = 2;
export const SUBSET_TAG_RELATIVE = 3;

/**
 * An integer in [min, max] exactly as `s.int` lays it out, but a read out of range fails with
 * the caller's reason rather than a generic one.
 */
function boundedInt(s: Stream, value: number, min: number, max: number, reason: string): number {
  const width = bitsRequired(min, max);
  if (width === 0) return min;
  const offset = s.bits(value - min, width);
  if (offset > max - min) {
    s.fail(reason);
    return min;
  }
  return min + offset;
}

/** The declared shape, checked in every mode: a bad n or maxCount is the caller's bug, not the input's. */
function checkShape(what: string, n: number, maxCount: number): void {
  if (!(Number.isInteger(n) && n >= 1 && n <= SUBSET_MAX_N)) {
    throw new RangeError(`${what}: n must be an integer in [1, ${SUBSET_MAX_N}], got ${n}`);
  }
  if (!(Number.isInteger(maxCount) && maxCount >= 0 && maxCount <= SUBSET_MAX_N)) {
    throw new RangeError(`${what}: maxCount must be an integer in [0, ${SUBSET_MAX_N}], got ${maxCount}`);
  }
}

/** What a writer must be given: at most maxCount integers, strictly increasing, in [0, n - 1]. */
function checkIndices(what: string, indices: number[], n: number, maxCount: number): void {
  if (indices.length > maxCount) {
    throw new RangeError(`${what}: ${indices.length} indices exceed maxCount ${maxCount}`);
  }
  let previous = -1;
  for (let i = 0; i < indices.length; i++) {
    const index = indices[i];
    if (!Number.isInteger(index) || index < 0 || index >= n) {
      throw new RangeError(
        `${what}: index ${index} at position ${i} is not an integer in [0, n - 1 = ${n - 1}]`,
      );
    }
    if (index <= previous) {
      throw new RangeError(
        `${what}: indices must be strictly increasing, got ${index} after ${previous} at position ${i}`,
      );
    }
    previous = index;
  }
}

function check(s: Stream, what: string, indices: number[], n: number, maxCount: number): void {
  checkShape(what, n, maxCount);
  if (!s.isReading) checkIndices(what, indices, n, maxCount);
}

/** The result of a read: what was read, or [] (a fresh one) if the stream has failed. */
function result(s: Stream, out: number[]): number[] {
  return s.ok ? out : [];
}

/**
 * (a) One bit per element, element i at stream bit i of the block: exactly n bits. Sent 32
 * elements per `s.bits` call; the BitWriter fills from the least significant bit, so element
 * base + j is bit j of its word and the layout equals n single bits in order. A read with more
 * than maxCount bits set fails.
 */
export function serializeSubsetBitmask(s: Stream, indices: number[], n: number, maxCount: number): number[] {
  check(s, 'serializeSubsetBitmask', indices, n, maxCount);
  if (!s.isReading) {
    let next = 0;
    for (let base = 0; base < n; base += 32) {
      const width = Math.min(32, n - base);
      let word = 0;
      while (next < indices.length && indices[next] < base + width) word |= 1 << (indices[next++] - base);
      s.bits(word >>> 0, width);
    }
    return indices;
  }
  const out: number[] = [];
  for (let base = 0; base < n && s.ok; base += 32) {
    let word = s.bits(0, Math.min(32, n - base));
    while (word !== 0) {
      if (out.length === maxCount) {
        s.fail(`subset bitmask has more than maxCount ${maxCount} bits set`);
        break;
      }
      const low = word & -word;
      out.push(base + 31 - Math.clz32(low));
      word ^= low;
    }
  }
  return result(s, out);
}

/** (b) The count as an integer in [0, maxCount], then each index as an integer in [0, n - 1]. */
export function serializeSubsetIndices(s: Stream, indices: number[], n: number, maxCount: number): number[] {
  check(s, 'serializeSubsetIndices', indices, n, maxCount);
  const count = boundedInt(s, indices.length, 0, maxCount, `subset count exceeds maxCount ${maxCount}`);
  // More than n distinct indices cannot exist: refuse before looping.
  if (count > n) s.fail(`subset count exceeds n ${n}`);
  if (!s.isReading) {
    for (let i = 0; i < count; i++) s.int(indices[i], 0, n - 1);
    return indices;
  }
  const out: number[] = [];
  let previous = -1;
  for (let i = 0; i < count && s.ok; i++) {
    const index = boundedInt(s, 0, 0, n - 1, `subset index >= n ${n}`);
    if (index <= previous) s.fail('subset indices not strictly increasing');
    out.push(index);
    previous = index;
  }
  return result(s, out);
}

/**
 * (c) Each index as an integer in [0, n], then n itself to end the list: (count + 1) *
 * bitsRequired(0, n) bits. A read fails if the list would exceed maxCount.
 */
export function serializeSubsetSentinel(s: Stream, indices: number[], n: number, maxCount: number): number[] {
  check(s, 'serializeSubsetSentinel', indices, n, maxCount);
  if (!s.isReading) {
    for (let i = 0; i < indices.length; i++) s.int(indices[i], 0, n);
    s.int(n, 0, n);
    return indices;
  }
  const out: number[] = [];
  let previous = -1;
  // At most maxCount indices plus the sentinel are read.
  while (s.ok) {
    const index = boundedInt(s, 0, 0, n, `subset index > sentinel n ${n}`);
    if (!s.ok || index === n) break;
    if (out.length === maxCount) s.fail(`subset list longer than maxCount ${maxCount}`);
    else if (index <= previous) s.fail('subset indices not strictly increasing');
    else {
      out.push(index);
      previous = index;
    }
  }
  return result(s, out);
}

/**
 * The relative-index ladder as data: tier t holds the differences [RELATIVE_TIER_MIN[t],
 * RELATIVE_TIER_MIN[t + 1] - 1], sent in bitsRequired of that range. Each tier's size doubles:
 *
 *   tier 0: difference 1          0 bits   tier 8:  [510, 1021]     9 bits
 *   tier 1: [2, 5]                2 bits   tier 9:  [1022, 2045]   10 bits
 *   tier 2: [6, 13]               3 bits   tier 10: [2046, 4093]   11 bits
 *   tier 3: [14, 29]              4 bits   tier 11: [4094, 8189]   12 bits
 *   tier 4: [30, 61]              5 bits   tier 12: [8190, 16381]  13 bits
 *   tier 5: [62, 125]             6 bits   tier 13: [16382, 32765] 14 bits
 *   tier 6: [126, 253]            7 bits   tier 14: [32766, 65533] 15 bits
 *   tier 7: [254, 509]            8 bits   tier 15: [65534, 65535] (any n <= 65535 ends here)
 *
 * Differences lie in [1, n]. The last tier is the first whose range reaches n; it is cut to
 * [min, n] and sent in bitsRequired(min, n) bits. Before every other tier goes a 1-bit flag,
 * 1 = "the difference is in this tier"; the last tier needs no flag. So with n large enough a
 * difference in tier t >= 1 costs t + 1 flag bits plus t + 1 value bits, and difference 1 costs 1.
 * The final entry is the exclusive end of the ladder.
 */
export const RELATIVE_TIER_MIN: readonly number[] = Object.freeze([
  1, 2, 6, 14, 30, 62, 126, 254, 510, 1022, 2046, 4094, 8190, 16382, 32766, 65534, 131070,
]);

/** Index of the last tier for `n`: the first whose range reaches n. */
function lastTier(n: number): number {
  let t = 0;
  while (RELATIVE_TIER_MIN[t + 1] - 1 < n) t++;
  return t;
}

/** One difference in [1, n] on the ladder. */
function serializeDifference(s: Stream, difference: number, n: number, last: number): number {
  for (let t = 0; t < last; t++) {
    const max = RELATIVE_TIER_MIN[t + 1] - 1;
    // A non-last tier spans exactly 2^width values, so no read of it can be out of range.
    if (s.bool(difference <= max)) return s.int(difference, RELATIVE_TIER_MIN[t], max);
  }
  return boundedInt(s, difference, RELATIVE_TIER_MIN[last], n, `subset relative difference past n ${n}`);
}

/**
 * (d) The count as an integer in [0, maxCount], then each index as its difference from the
 * previous one (starting from -1) on the {@link RELATIVE_TIER_MIN} ladder.
 */
export function serializeSubsetRelative(s: Stream, indices: number[], n: number, maxCount: number): number[] {
  check(s, 'serializeSubsetRelative', indices, n, maxCount);
  const last = lastTier(n);
  const count = boundedInt(s, indices.length, 0, maxCount, `subset count exceeds maxCount ${maxCount}`);
  // More than n distinct indices cannot exist: refuse before looping.
  if (count > n) s.fail(`subset count exceeds n ${n}`);
  if (!s.isReading) {
    let previous = -1;
    for (let i = 0; i < count; i++) {
      serializeDifference(s, indices[i] - previous, n, last);
      previous = indices[i];
    }
    return indices;
  }
  const out: number[] = [];
  let previous = -1;
  for (let i = 0; i < count && s.ok; i++) {
    const index = previous + serializeDifference(s, 0, n, last);
    if (index >= n) s.fail(`subset index >= n ${n}`);
    out.push(index);
    previous = index;
  }
  return result(s, out);
}

type Encoding = (s: Stream, indices: number[], n: number, maxCount: number) => number[];

/** Indexed by tag. */
const ENCODINGS: readonly Encoding[] = [
  serializeSubsetBitmask,
  serializeSubsetIndices,
  serializeSubsetSentinel,
  serializeSubsetRelative,
];

// Reused so choosing an encoding allocates nothing; measuring never re-enters serializeSubset.
const scratch = new MeasureStream();

/**
 * The tag of the cheapest encoding of `indices` (exact measured bits; the lower tag on a tie).
 * Throws RangeError for input a writer would refuse.
 */
export function chooseSubsetEncoding(indices: number[], n: number, maxCount: number): number {
  let best = 0;
  let bestBits = Number.POSITIVE_INFINITY;
  for (let tag = 0; tag < ENCODINGS.length; tag++) {
    scratch.reset();
    ENCODINGS[tag](scratch, indices, n, maxCount);
    if (scratch.bitsProcessed < bestBits) {
      best = tag;
      bestBits = scratch.bitsProcessed;
    }
  }
  return best;
}

/**
 * (e) A 2-bit tag (SUBSET_TAG_*) naming the cheapest of (a)-(d) for this list, then that
 * encoding. A reader dispatches on the tag; all four values are valid.
 */
export function serializeSubset(s: Stream, indices: number[], n: number, maxCount: number): number[] {
  check(s, 'serializeSubset', indices, n, maxCount);
  const tag = s.bits(s.isReading ? 0 : chooseSubsetEncoding(indices, n, maxCount), 2);
  return ENCODINGS[tag](s, indices, n, maxCount);
}
