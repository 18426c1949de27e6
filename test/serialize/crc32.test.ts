import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as zlib from 'node:zlib';
import { prng, randomBytes } from '../../src/random/prng.js';
import { crc32 } from '../../src/serialize/crc32.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('crc32 tests');

/** One bit at a time, straight from the definition: the reference the tables must agree with. */
function bitwiseCrc32(data: Uint8Array, previous = 0): number {
  let crc = ~previous >>> 0;
  for (const byte of data) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return ~crc >>> 0;
}

// zlib.crc32 arrived in Node 20.15; older Nodes compare against the bitwise reference alone.
const zlibCrc32 = typeof zlib.crc32 === 'function' ? zlib.crc32 : null;
const reference = (data: Uint8Array, previous = 0): number =>
  zlibCrc32 === null ? bitwiseCrc32(data, previous) : zlibCrc32(data, previous);
console.log(
  `crc32 tests: reference is ${zlibCrc32 === null ? 'bitwise (no zlib.crc32)' : 'node:zlib crc32'}`,
);

const ascii = (text: string) => new TextEncoder().encode(text);

describe('crc32', () => {
  it('gives the standard check value for "123456789"', () => {
    assert.equal(crc32(ascii('123456789')), 0xcbf43926);
    assert.equal(bitwiseCrc32(ascii('123456789')), 0xcbf43926);
  });

  it('gives 0 for empty input, and passes `previous` through an empty range', () => {
    assert.equal(crc32(new Uint8Array(0)), 0);
    const data = ascii('abc');
    assert.equal(crc32(data, 2, 2), 0);
    assert.equal(crc32(data, 3, 3, 0xdeadbeef), 0xdeadbeef);
    assert.equal(crc32(data, 0, 0, 0xffffffff), 0xffffffff);
  });

  it('returns an unsigned 32-bit number', () => {
    // 0xcbf43926 has the top bit set: a signed result would be negative.
    const value = crc32(ascii('123456789'));
    assert.ok(value > 0x7fffffff && value <= 0xffffffff && Number.isInteger(value));
  });

  it('agrees with the bitwise reference for every length 0..72 at every offset 0..8', () => {
    const next = prng(SEED);
    const data = randomBytes(next, 96);
    for (let start = 0; start <= 8; start++) {
      for (let length = 0; length <= 72; length++) {
        const end = start + length;
        assert.equal(
          crc32(data, start, end),
          bitwiseCrc32(data.subarray(start, end)),
          `start ${start} length ${length} seed ${SEED}`,
        );
      }
    }
  });

  it('agrees with the reference on 3000 random buffers, lengths and offsets 0..5000', () => {
    const next = prng(SEED ^ 0x1234);
    for (let n = 0; n < 3000; n++) {
      const size = Math.floor(next() * 5001);
      const data = randomBytes(next, size);
      const start = Math.floor(next() * (size + 1));
      const end = start + Math.floor(next() * (size - start + 1));
      const view = data.subarray(start, end);
      const want = reference(view);
      assert.equal(crc32(data, start, end), want, `case ${n}: [${start}, ${end}) of ${size}, seed ${SEED}`);
      // Same bytes through a view whose byteOffset is not a multiple of anything in particular.
      assert.equal(crc32(view), want, `case ${n} as a view, seed ${SEED}`);
      if (n % 30 === 0)
        assert.equal(bitwiseCrc32(view), want, `reference disagrees, case ${n}, seed ${SEED}`);
    }
  });

  it('chains: crc32(b, previous = crc32(a)) is the CRC of a then b', () => {
    const next = prng(SEED ^ 0x5678);
    for (let n = 0; n < 500; n++) {
      const size = Math.floor(next() * 2000);
      const data = randomBytes(next, size);
      const cut1 = Math.floor(next() * (size + 1));
      const cut2 = cut1 + Math.floor(next() * (size - cut1 + 1));
      const whole = crc32(data);
      const a = crc32(data, 0, cut1);
      const ab = crc32(data, cut1, cut2, a);
      assert.equal(
        crc32(data, cut2, size, ab),
        whole,
        `case ${n}: cuts ${cut1}, ${cut2} of ${size}, seed ${SEED}`,
      );
      // Chaining matches zlib's `crc32(buf, previous)` form too.
      assert.equal(
        crc32(data, cut1, size, a),
        reference(data.subarray(cut1), a),
        `case ${n}: chained against reference, seed ${SEED}`,
      );
    }
  });

  it('throws on a range outside the input', () => {
    const data = new Uint8Array(4);
    assert.throws(() => crc32(data, -1, 2), RangeError);
    assert.throws(() => crc32(data, 0, 5), RangeError);
    assert.throws(() => crc32(data, 3, 2), RangeError);
    assert.throws(() => crc32(data, 0.5, 2), RangeError);
  });
});
