import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prng } from '../../src/random/prng.js';
import { MeasureStream } from '../../src/serialize/measure-stream.js';
import { ReadStream } from '../../src/serialize/read-stream.js';
import type { Stream } from '../../src/serialize/stream.js';
import {
  chooseSubsetEncoding,
  RELATIVE_TIER_MIN,
  SUBSET_TAG_BITMASK,
  SUBSET_TAG_INDICES,
  SUBSET_TAG_RELATIVE,
  SUBSET_TAG_SENTINEL,
  serializeSubset,
  serializeSubsetBitmask,
  serializeSubsetIndices,
  serializeSubsetRelative,
  serializeSubsetSentinel,
} from '../../src/serialize/subset.js';
import { WriteStream } from '../../src/serialize/write-stream.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('subset tests');

type Encoding = (s: Stream, indices: number[], n: number, maxCount: number) => number[];

const BASIC: [string, Encoding][] = [
  ['bitmask', serializeSubsetBitmask],
  ['indices', serializeSubsetIndices],
  ['sentinel', serializeSubsetSentinel],
  ['relative', serializeSubsetRelative],
];
const ALL: [string, Encoding][] = [...BASIC, ['subset', serializeSubset]];

const bitsRequired = (max: number) => (max === 0 ? 0 : 32 - Math.clz32(max));

function measure(fn: Encoding, indices: number[], n: number, maxCount: number): number {
  const m = new MeasureStream();
  assert.equal(fn(m, indices, n, maxCount), indices, 'measure returns its input');
  return m.bitsProcessed;
}

// Room for the largest case: all 65535 indices at 16 bits each, plus count and tag.
const w = new WriteStream(132_000);

function write(
  fn: Encoding,
  indices: number[],
  n: number,
  maxCount: number,
): { bytes: Uint8Array; bits: number } {
  w.reset();
  assert.equal(fn(w, indices, n, maxCount), indices, 'write returns its input');
  return { bytes: w.finish().slice(), bits: w.bitsProcessed };
}

/** Write, check measure == written, read back, check equality and that the reader consumed it all. */
function roundTrip(
  fn: Encoding,
  indices: number[],
  n: number,
  maxCount: number,
): { bytes: Uint8Array; bits: number } {
  const written = write(fn, indices, n, maxCount);
  assert.equal(measure(fn, indices, n, maxCount), written.bits, 'measure == bits written');
  const r = new ReadStream();
  r.reset(written.bytes);
  const read = fn(r, [], n, maxCount);
  assert.ok(r.ok, `read failed: ${r.error}`);
  assert.deepEqual(read, indices);
  assert.notEqual(read, indices);
  assert.equal(r.bitsProcessed, written.bits, 'bits read == bits written');
  assert.ok(r.end(), `end: ${r.error}`);
  return written;
}

/** A valid read result: strictly increasing, in [0, n - 1], at most maxCount long. */
function assertValid(list: number[], n: number, maxCount: number, what: string): void {
  assert.ok(Array.isArray(list), what);
  assert.ok(list.length <= maxCount, `${what}: ${list.length} > maxCount ${maxCount}`);
  let previous = -1;
  for (const index of list) {
    assert.ok(Number.isInteger(index) && index > previous && index < n, `${what}: bad index ${index}`);
    previous = index;
  }
}

function randomSubset(rand: () => number, n: number, p: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) if (rand() < p) out.push(i);
  return out;
}

function sparseSubset(rand: () => number, n: number, k: number): number[] {
  const set = new Set<number>();
  while (set.size < Math.min(k, n)) set.add(Math.floor(rand() * n));
  return [...set].sort((a, b) => a - b);
}

/** Cases of (indices, n, maxCount) covering the edges and random shapes. */
function cases(rand: () => number): [number[], number, number][] {
  const out: [number[], number, number][] = [];
  for (const n of [1, 2, 3, 5, 6, 31, 32, 33, 64, 100, 4000, 65535]) {
    const all = Array.from({ length: n }, (_, i) => i);
    out.push(
      [[], n, 0],
      [[], n, n],
      [all, n, n],
      [[0], n, 1],
      [[n - 1], n, n],
      [[0, n - 1].slice(0, n), n, n],
    );
    const trials = n > 5000 ? 6 : 20;
    for (let t = 0; t < trials; t++) {
      const p = [0.001, 0.01, 0.1, 0.5, 0.9, 0.999][t % 6];
      const list =
        t % 2 === 0 ? randomSubset(rand, n, p) : sparseSubset(rand, n, 1 + Math.floor(rand() * 12));
      // maxCount: exact, anywhere up to n, or past n (allowed; it only widens the count).
      const slack = Math.floor(rand() * (n - list.length + 1));
      const maxCount = [list.length, list.length + slack, Math.min(65535, n + 1 + Math.floor(rand() * 1000))][
        t % 3
      ];
      out.push([list, n, maxCount]);
    }
  }
  return out;
}

describe(`subset encodings (seed ${SEED})`, () => {
  for (const [name, fn] of ALL) {
    it(`${name}: random round trips, measure == written`, () => {
      const rand = prng(SEED);
      for (const [indices, n, maxCount] of cases(rand)) roundTrip(fn, indices, n, maxCount);
    });
  }

  it('sizes follow the layouts', () => {
    const rand = prng(SEED ^ 0x77);
    for (const [indices, n, maxCount] of cases(rand)) {
      const k = indices.length;
      assert.equal(measure(serializeSubsetBitmask, indices, n, maxCount), n);
      assert.equal(
        measure(serializeSubsetIndices, indices, n, maxCount),
        bitsRequired(maxCount) + k * bitsRequired(n - 1),
      );
      assert.equal(measure(serializeSubsetSentinel, indices, n, maxCount), (k + 1) * bitsRequired(n));
    }
  });

  it('serializeSubset picks the cheapest (earliest on a tie) and costs 2 bits more', () => {
    const rand = prng(SEED ^ 0x99);
    const seen = new Set<number>();
    for (const [indices, n, maxCount] of cases(rand)) {
      const sizes = BASIC.map(([, fn]) => measure(fn, indices, n, maxCount));
      const best = sizes.indexOf(Math.min(...sizes));
      const { bytes, bits } = roundTrip(serializeSubset, indices, n, maxCount);
      assert.equal(bytes[0] & 3, best, `tag for sizes ${sizes}`);
      assert.equal(chooseSubsetEncoding(indices, n, maxCount), best);
      assert.equal(bits, 2 + sizes[best]);
      seen.add(best);
    }
    assert.deepEqual(
      [...seen].sort(),
      [SUBSET_TAG_BITMASK, SUBSET_TAG_INDICES, SUBSET_TAG_SENTINEL, SUBSET_TAG_RELATIVE],
      'every encoding wins somewhere',
    );
  });

  it('a sparse subset of many objects costs far less than a bitmask', () => {
    const rand = prng(SEED ^ 0x55);
    const indices = sparseSubset(rand, 4000, 5);
    const bits = roundTrip(serializeSubset, indices, 4000, 4000).bits;
    // Indices alone: 2 + 12 + 5 * 12 = 74.
    assert.ok(bits <= 74, `${bits} bits`);
    const dense = roundTrip(serializeSubset, [10, 11, 12, 13, 14], 4000, 64).bits;
    // Relative: 2 + 7 (count) + diff 11 (1 + 1 + 1 + 3) + four diffs of 1.
    assert.equal(dense, 2 + 7 + 6 + 4);
  });
});

describe('relative ladder', () => {
  const rel = (indices: number[], n: number, maxCount: number) =>
    measure(serializeSubsetRelative, indices, n, maxCount);

  it('hand-computed sizes', () => {
    // n = 4000, maxCount = 10: the count takes 4 bits.
    assert.equal(rel([0], 4000, 10), 4 + 1); // difference 1: flag only
    assert.equal(rel([1], 4000, 10), 4 + 1 + 1 + 2); // difference 2: no, yes, 2 bits
    assert.equal(rel([4], 4000, 10), 4 + 1 + 1 + 2); // difference 5: last of [2, 5]
    assert.equal(rel([5], 4000, 10), 4 + 1 + 1 + 1 + 3); // difference 6: first of [6, 13]
    assert.equal(rel([0, 1, 2, 3], 4000, 10), 4 + 4); // four differences of 1
    assert.equal(rel([28], 4000, 10), 4 + 4 + 4); // difference 29: tier [14, 29]
    assert.equal(rel([29], 4000, 10), 4 + 5 + 5); // difference 30: tier [30, 61]
    // Difference 4000 is in [2046, 4093], the last tier for n = 4000: ten flags, no own flag,
    // then bitsRequired(2046, 4000) = 11 bits.
    assert.equal(rel([3999], 4000, 10), 4 + 10 + 11);
    // n = 1: the only difference is 1, the only tier is the last, so no bits beyond the count.
    assert.equal(rel([0], 1, 1), 1);
    // n = 2: difference 2 is in the last tier, cut to [2, 2]: one flag, zero bits.
    assert.equal(rel([1], 2, 2), 2 + 1);
    // n = 5: the last tier is [2, 5]: difference 2 costs one flag and 2 bits.
    assert.equal(rel([1], 5, 5), 3 + 1 + 2);
  });

  it('tiers double and each difference costs what the ladder says', () => {
    for (let t = 1; t + 1 < RELATIVE_TIER_MIN.length; t++) {
      assert.equal(RELATIVE_TIER_MIN[t + 1], 2 * RELATIVE_TIER_MIN[t] + 2, `tier ${t}`);
    }
    assert.ok(RELATIVE_TIER_MIN[RELATIVE_TIER_MIN.length - 1] > 65535, 'ladder covers every n');
    for (const n of [1, 2, 3, 5, 6, 13, 14, 100, 4000, 65534, 65535]) {
      const differences = [n];
      for (let d = 1; d < n; d += d < 300 ? 1 : 97) differences.push(d);
      for (const d of differences) {
        // A difference d >= 2 lies in the tier of b value bits where 2^b <= d + 2 < 2^(b + 1).
        const b = d === 1 ? 0 : 31 - Math.clz32(d + 2);
        const lastB = n === 1 ? 0 : 31 - Math.clz32(n + 2);
        let cost: number;
        if (b === lastB) cost = Math.max(b - 1, 0) + (d === 1 ? 0 : bitsRequired(n - (2 ** b - 2)));
        else cost = d === 1 ? 1 : 2 * b;
        assert.equal(rel([d - 1], n, 1), bitsRequired(1) + cost, `n ${n} difference ${d}`);
      }
    }
  });
});

describe(`hostile reads (seed ${SEED})`, () => {
  const shapes: [number, number][] = [
    [1, 0],
    [1, 1],
    [2, 2],
    [7, 3],
    [33, 33],
    [100, 5],
    [4000, 4000],
    [4000, 20],
    [65535, 65535],
    [65535, 3],
    [3, 65535],
    [100, 1000],
  ];

  for (const [name, fn] of ALL) {
    it(`${name}: random bytes never throw; a good read is valid, a bad one returns []`, () => {
      const rand = prng(SEED ^ 0x4242);
      const r = new ReadStream(9000);
      let good = 0;
      for (let i = 0; i < 3000; i++) {
        const [n, maxCount] = shapes[i % shapes.length];
        const long = rand() < 0.2;
        const bytes = new Uint8Array(Math.floor(rand() * (long ? 8200 : 40)));
        const density = rand();
        for (let k = 0; k < bytes.length; k++) {
          // Sparse bytes let bitmasks and small counts through often enough to test the good path.
          bytes[k] = rand() < density ? Math.floor(rand() * 256) : 0;
        }
        r.reset(bytes);
        const list = fn(r, [], n, maxCount);
        if (r.ok) {
          good++;
          assertValid(list, n, maxCount, `${name} n ${n} maxCount ${maxCount}`);
        } else {
          assert.deepEqual(list, []);
          assert.ok(typeof r.reason === 'string' && r.reason.length > 0);
        }
      }
      assert.ok(good > 100, `only ${good} reads succeeded`);
    });

    it(`${name}: every strict prefix of a valid encoding fails cleanly`, () => {
      const rand = prng(SEED ^ 0x1717);
      const r = new ReadStream();
      for (const [indices, n, maxCount] of [
        [[0, 5, 9], 10, 10],
        [sparseSubset(rand, 4000, 7), 4000, 50],
        [randomSubset(rand, 300, 0.6), 300, 300],
        [[], 65535, 10],
      ] as [number[], number, number][]) {
        const { bytes } = write(fn, indices, n, maxCount);
        for (let len = 0; len < bytes.length; len++) {
          r.reset(bytes.subarray(0, len));
          const list = fn(r, [], n, maxCount);
          assert.ok(!r.ok, `prefix ${len} of ${bytes.length} read ok`);
          assert.match(r.reason ?? '', /past the end/);
          assert.deepEqual(list, []);
        }
      }
    });
  }

  /** Bytes from raw writes, for inputs no writer of ours would produce. */
  function craft(ops: [number, number][]): Uint8Array {
    const w = new WriteStream(64);
    for (const [value, bits] of ops) w.bits(value, bits);
    return w.finish().slice();
  }

  function readFails(fn: Encoding, bytes: Uint8Array, n: number, maxCount: number, reason: RegExp): void {
    const r = new ReadStream();
    r.reset(bytes);
    assert.deepEqual(fn(r, [], n, maxCount), []);
    assert.ok(!r.ok, 'read should fail');
    assert.match(r.reason ?? '', reason);
  }

  it('rejects what a writer cannot produce, with a reason', () => {
    // indices, n = 5 (3 bits each), maxCount = 5 (3 bits): count 6, count 2 then 3 then 1, index 7.
    readFails(serializeSubsetIndices, craft([[6, 3]]), 5, 5, /count exceeds maxCount/);
    readFails(
      serializeSubsetIndices,
      craft([
        [2, 3],
        [3, 3],
        [1, 3],
      ]),
      5,
      5,
      /not strictly increasing/,
    );
    readFails(
      serializeSubsetIndices,
      craft([
        [2, 3],
        [1, 3],
        [1, 3],
      ]),
      5,
      5,
      /not strictly increasing/,
    );
    readFails(
      serializeSubsetIndices,
      craft([
        [1, 3],
        [7, 3],
      ]),
      5,
      5,
      /index >= n/,
    );
    // bitmask, n = 8, maxCount = 2: three bits set.
    readFails(serializeSubsetBitmask, craft([[0b1011, 8]]), 8, 2, /more than maxCount/);
    // sentinel, n = 5 (3 bits, sentinel 5): index 6, a repeat, a fourth entry with maxCount 3.
    readFails(serializeSubsetSentinel, craft([[6, 3]]), 5, 5, /sentinel/);
    readFails(
      serializeSubsetSentinel,
      craft([
        [2, 3],
        [2, 3],
        [5, 3],
      ]),
      5,
      5,
      /not strictly increasing/,
    );
    readFails(
      serializeSubsetSentinel,
      craft([
        [0, 3],
        [1, 3],
        [2, 3],
        [3, 3],
        [5, 3],
      ]),
      5,
      3,
      /longer than maxCount/,
    );
    // relative, n = 5 (last tier [2, 5] in 2 bits), maxCount 3 (2 bits): count 2, then 1, then 5 -> index 5.
    readFails(
      serializeSubsetRelative,
      craft([
        [2, 2],
        [1, 1],
        [0, 1],
        [3, 2],
      ]),
      5,
      3,
      /index >= n/,
    );
    // relative, n = 4: last tier [2, 4] in 2 bits, offset 3 is difference 5.
    readFails(
      serializeSubsetRelative,
      craft([
        [1, 3],
        [0, 1],
        [3, 2],
      ]),
      4,
      4,
      /difference past n/,
    );
    readFails(serializeSubsetRelative, craft([[3, 2]]), 3, 2, /count exceeds maxCount/);
    // maxCount above n: a count above n is refused before any index is read.
    readFails(serializeSubsetIndices, craft([[4, 4]]), 3, 10, /count exceeds n/);
    readFails(serializeSubsetRelative, craft([[4, 4]]), 3, 10, /count exceeds n/);
    // subset: the tag then a bad bitmask.
    readFails(
      serializeSubset,
      craft([
        [SUBSET_TAG_BITMASK, 2],
        [0b111, 3],
      ]),
      3,
      2,
      /more than maxCount/,
    );
  });

  it('a failed stream stays failed and reads stay bounded', () => {
    const r = new ReadStream();
    r.reset(new Uint8Array(0));
    for (const [, fn] of ALL) {
      assert.deepEqual(fn(r, [], 65535, 65535), []);
      assert.ok(!r.ok);
    }
  });
});

describe('writer misuse', () => {
  it('throws RangeError naming the limit, writing or measuring', () => {
    for (const [name, fn] of ALL) {
      for (const s of [new WriteStream(9000), new MeasureStream()]) {
        const bad: [number[], number, number, RegExp][] = [
          [[3, 2], 10, 10, /strictly increasing/],
          [[2, 2], 10, 10, /strictly increasing/],
          [[-1], 10, 10, /\[0, n - 1 = 9\]/],
          [[10], 10, 10, /\[0, n - 1 = 9\]/],
          [[1.5], 10, 10, /\[0, n - 1 = 9\]/],
          [[1, 2, 3], 10, 2, /exceed maxCount 2/],
          [[], 0, 0, /n must be/],
          [[], 65536, 0, /n must be/],
          [[], 2.5, 0, /n must be/],
          [[], 10, 65536, /maxCount must be/],
          [[], 10, 1.5, /maxCount must be/],
          [[], 10, -1, /maxCount must be/],
        ];
        for (const [indices, n, maxCount, message] of bad) {
          assert.throws(() => fn(s, indices, n, maxCount), RangeError, `${name} ${indices} ${n} ${maxCount}`);
          assert.throws(() => fn(s, indices, n, maxCount), message, `${name} ${indices} ${n} ${maxCount}`);
        }
      }
      // A bad declared shape is the reader's caller's bug too.
      assert.throws(() => fn(new ReadStream(), [], 0, 0), RangeError);
    }
  });
});
