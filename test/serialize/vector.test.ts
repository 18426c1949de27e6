import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prng } from '../../src/random/prng.js';
import { compressedFloat, dequantize, quantize } from '../../src/serialize/compressed-float.js';
import { MeasureStream } from '../../src/serialize/measure-stream.js';
import {
  SMALLEST_THREE_BOUND,
  serializeCompressedQuaternion,
  serializeQuaternion,
  serializeSmallestThree,
  smallestThree,
} from '../../src/serialize/quaternion.js';
import { ReadStream } from '../../src/serialize/read-stream.js';
import type { Stream } from '../../src/serialize/stream.js';
import { serializeCompressedVector3, serializeVector3 } from '../../src/serialize/vector.js';
import { WriteStream } from '../../src/serialize/write-stream.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('vector tests');

/** Writes with `fn`, checks the measure equals the bits written, reads back into `target`. */
function roundTrip<T>(
  fn: (s: Stream, value: T) => T,
  value: T,
  target: T,
): { bits: number; read: T; stream: ReadStream; bytes: Uint8Array } {
  const m = new MeasureStream();
  fn(m, value);
  const w = new WriteStream(64);
  assert.equal(fn(w, value), value, 'write returns its input');
  assert.equal(w.bitsProcessed, m.bitsProcessed, 'measure == bits written');
  const bytes = w.finish().slice();
  const r = new ReadStream();
  r.reset(bytes);
  const read = fn(r, target);
  assert.ok(r.ok, `read failed: ${r.error}`);
  assert.equal(r.bitsProcessed, w.bitsProcessed, 'bits read == bits written');
  assert.ok(r.end(), `end: ${r.error}`);
  return { bits: w.bitsProcessed, read, stream: r, bytes };
}

/** A uniformly random unit quaternion (Shoemake's method). */
function randomUnitQuaternion(rand: () => number): number[] {
  const u1 = rand();
  const u2 = rand() * 2 * Math.PI;
  const u3 = rand() * 2 * Math.PI;
  const a = Math.sqrt(1 - u1);
  const b = Math.sqrt(u1);
  return [a * Math.sin(u2), a * Math.cos(u2), b * Math.sin(u3), b * Math.cos(u3)];
}

/** The form the encoder sends, computed independently: normalised, largest (first on a tie) made positive. */
function canonical(q: readonly number[]): { q: number[]; largest: number } {
  const length = Math.hypot(q[0], q[1], q[2], q[3]);
  let largest = 0;
  for (let i = 1; i < 4; i++) if (Math.abs(q[i]) > Math.abs(q[largest])) largest = i;
  const sign = q[largest] < 0 ? -1 : 1;
  return { q: q.map((c) => (c * sign) / length), largest };
}

const dot = (a: readonly number[], b: readonly number[]) =>
  a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];

describe(`vector3 (seed ${SEED})`, () => {
  it('raw float32 round trip is exact, in place, 96 bits', () => {
    const rand = prng(SEED);
    // Float32 values only (the smallest subnormal and largest finite included): these survive exactly.
    const specials = [0, -0, 1, -1, Infinity, -Infinity, Number.NaN, 2 ** -149, Math.fround(3.4028234e38)];
    for (let i = 0; i < 500; i++) {
      const pick = () =>
        rand() < 0.2
          ? specials[Math.floor(rand() * specials.length)]
          : Math.fround((rand() - 0.5) * 10 ** Math.floor(rand() * 12 - 4));
      const v = [pick(), pick(), pick()];
      const target = [7, 7, 7];
      const { bits, read } = roundTrip(serializeVector3, v, target);
      assert.equal(bits, 96);
      assert.equal(read, target, 'read fills and returns the caller array');
      for (let k = 0; k < 3; k++)
        assert.ok(Object.is(read[k], v[k]), `component ${k}: ${read[k]} vs ${v[k]}`);
    }
  });

  it('compressed round trip decodes to the quantized value, 3 * spec.bits', () => {
    const rand = prng(SEED ^ 0x1234);
    const spec = compressedFloat(-512, 512, 0.01, { clamp: true });
    for (let i = 0; i < 500; i++) {
      const v = [0, 1, 2].map(() => (rand() - 0.5) * 1100); // some past the range: clamped as declared
      const { bits, read } = roundTrip(
        (s, x: number[]) => serializeCompressedVector3(s, x, spec),
        v,
        [0, 0, 0],
      );
      assert.equal(bits, 3 * spec.bits);
      for (let k = 0; k < 3; k++) {
        assert.equal(read[k], dequantize(quantize(v[k], spec), spec));
        const clamped = Math.min(512, Math.max(-512, v[k]));
        // Half a step, plus the float32 rounding of the input and of the decode's three rounded
        // steps: a few ulps at the range's magnitude (512, where one ulp is 2^-14).
        assert.ok(Math.abs(read[k] - clamped) <= spec.resolution / 2 + 4 * 2 ** -14, `${read[k]} vs ${v[k]}`);
      }
    }
  });

  it('a component outside a non-clamping range, or NaN under any range, throws naming the value', () => {
    for (const [spec, value] of [
      [compressedFloat(-512, 512, 0.01), 512.5],
      [compressedFloat(-512, 512, 0.01, { clamp: true }), Number.NaN],
      [compressedFloat(-512, 512, 0.01, { clamp: true }), Number.NEGATIVE_INFINITY],
    ] as const) {
      const s = new WriteStream(64);
      assert.throws(() => serializeCompressedVector3(s, [0, value, 0], spec), {
        name: 'RangeError',
        message: new RegExp(`compressedFloat: ${value}`),
      });
    }
  });

  it('rejects arrays of the wrong length in every mode', () => {
    for (const s of [new WriteStream(64), new MeasureStream(), new ReadStream()]) {
      assert.throws(() => serializeVector3(s, [1, 2]), RangeError);
      assert.throws(
        () => serializeCompressedVector3(s, [1, 2, 3, 4], compressedFloat(0, 1, 0.1)),
        RangeError,
      );
    }
  });
});

describe(`quaternion (seed ${SEED})`, () => {
  it('raw float32 round trip is exact, 128 bits', () => {
    const rand = prng(SEED ^ 0x5678);
    for (let i = 0; i < 200; i++) {
      const q = randomUnitQuaternion(rand).map(Math.fround);
      const { bits, read } = roundTrip(serializeQuaternion, q, [0, 0, 0, 0]);
      assert.equal(bits, 128);
      assert.deepEqual(read, q);
    }
  });

  it('compressed round trip, 4 * spec.bits, within half a step', () => {
    const rand = prng(SEED ^ 0x9abc);
    const spec = compressedFloat(-1, 1, 1 / 1024);
    for (let i = 0; i < 200; i++) {
      const q = randomUnitQuaternion(rand);
      const { bits, read } = roundTrip(
        (s, x: number[]) => serializeCompressedQuaternion(s, x, spec),
        q,
        [0, 0, 0, 0],
      );
      assert.equal(bits, 4 * spec.bits);
      for (let k = 0; k < 4; k++) assert.ok(Math.abs(read[k] - q[k]) <= spec.resolution / 2 + 1e-6);
    }
  });
});

describe(`smallest three (seed ${SEED})`, () => {
  it('costs 2 + 3 * bits (29 at the default 9), measure == written', () => {
    const q = [0.1, -0.2, 0.3, 0];
    q[3] = Math.sqrt(1 - 0.14);
    const { bits } = roundTrip(serializeSmallestThree, q, [0, 0, 0, 0]);
    assert.equal(bits, 29);
    for (let b = 2; b <= 16; b++) {
      const r = roundTrip((s, x: number[]) => serializeSmallestThree(s, x, b), q, [0, 0, 0, 0]);
      assert.equal(r.bits, 2 + 3 * b);
      assert.equal(smallestThree(b).totalBits, 2 + 3 * b);
    }
  });

  for (let bits = 2; bits <= 16; bits++) {
    it(`${bits} bits: sends the largest index, errors within half a step, decodes to a unit quaternion`, () => {
      const rand = prng((SEED + bits * 7919) >>> 0);
      // Half a step over [-1/sqrt2, 1/sqrt2] with 2^bits levels, independent of the module's constants.
      const e = SMALLEST_THREE_BOUND / ((1 << bits) - 1);
      const fixed = [
        [0, 0, 0, 1],
        [-1, 0, 0, 0],
        [0.5, 0.5, 0.5, 0.5],
        [-0.5, -0.5, 0.5, -0.5],
        [Math.SQRT1_2, -Math.SQRT1_2, 0, 0],
        [0, -Math.SQRT1_2, 0, -Math.SQRT1_2],
        [0.1, 0.2, 0.3, -0.9].map((c) => c / Math.hypot(0.1, 0.2, 0.3, 0.9)),
      ];
      for (let i = 0; i < 400 + fixed.length; i++) {
        const q = i < fixed.length ? fixed[i] : randomUnitQuaternion(rand);
        const input = q.slice();
        const { read, bytes } = roundTrip(
          (s, x: number[]) => serializeSmallestThree(s, x, bits),
          q,
          [9, 9, 9, 9],
        );
        assert.deepEqual(q, input, 'writing leaves the input alone');
        const want = canonical(q);
        assert.equal(bytes[0] & 3, want.largest, 'first 2 bits are the largest index');
        assert.ok(Math.abs(Math.hypot(read[0], read[1], read[2], read[3]) - 1) < 1e-12, 'unit length');
        assert.ok(read[want.largest] >= 0, 'rebuilt largest is non-negative');
        // The -q form must encode identically.
        const negated = roundTrip(
          (s, x: number[]) => serializeSmallestThree(s, x, bits),
          q.map((c) => -c),
          [0, 0, 0, 0],
        );
        // Exact ties in magnitude pick the first index for q and -q alike, and negate both to the same form.
        assert.deepEqual(negated.bytes, bytes, 'q and -q encode the same');
        if (bits < 4) continue; // below 4 bits a rebuilt square sum can pass 1 and the renormalisation moves all four
        for (let k = 0; k < 4; k++) {
          if (k === want.largest) continue;
          assert.ok(
            Math.abs(read[k] - want.q[k]) <= e + 1e-12,
            `component ${k}: ${read[k]} vs ${want.q[k]} (bound ${e})`,
          );
        }
        // |dl| = |dS| / (l + l') <= e * (2 * sum|c| + 3e) / l <= e * (6 + 6e), as l >= 1/2 and |c| <= l.
        const dl = e * (6 + 6 * e);
        assert.ok(Math.abs(read[want.largest] - want.q[want.largest]) <= dl + 1e-12, 'largest component');
        // Both unit: q . q' = 1 - |q - q'|^2 / 2.
        const bound = 1 - (3 * e * e + dl * dl) / 2;
        assert.ok(dot(read, want.q) >= bound - 1e-12, `dot ${dot(read, want.q)} < ${bound}`);
      }
    });
  }

  it('accepts a quaternion within 1e-3 of unit length and normalises it', () => {
    const q = [0.5, 0.5, 0.5, 0.5].map((c) => c * 1.0009);
    const { read } = roundTrip(serializeSmallestThree, q, [0, 0, 0, 0]);
    const e = SMALLEST_THREE_BOUND / 511;
    for (let k = 1; k < 4; k++) assert.ok(Math.abs(read[k] - 0.5) <= e + 1e-12);
  });

  it('writer misuse throws RangeError', () => {
    for (const s of [new WriteStream(64), new MeasureStream()]) {
      assert.throws(() => serializeSmallestThree(s, [0, 0, 0, 1.002]), RangeError);
      assert.throws(() => serializeSmallestThree(s, [0, 0, 0, 0.998]), RangeError);
      assert.throws(() => serializeSmallestThree(s, [0, 0, 0, 0]), RangeError);
      assert.throws(() => serializeSmallestThree(s, [Number.NaN, 0, 0, 1]), RangeError);
      assert.throws(() => serializeSmallestThree(s, [Number.POSITIVE_INFINITY, 0, 0, 1]), RangeError);
      assert.throws(() => serializeSmallestThree(s, [0, 0, 1]), RangeError);
    }
    for (const bits of [0, 1, 17, 32, 9.5, Number.NaN]) {
      assert.throws(() => serializeSmallestThree(new WriteStream(64), [0, 0, 0, 1], bits), RangeError);
      assert.throws(() => serializeSmallestThree(new ReadStream(), [0, 0, 0, 1], bits), RangeError);
      assert.throws(() => smallestThree(bits), RangeError);
    }
  });

  it('hostile bytes never throw and decode to a unit quaternion; truncation fails to the identity', () => {
    const rand = prng(SEED ^ 0xdead);
    const r = new ReadStream();
    for (let i = 0; i < 2000; i++) {
      const bits = 2 + Math.floor(rand() * 15);
      const bytes = new Uint8Array(Math.floor(rand() * 8));
      for (let k = 0; k < bytes.length; k++) bytes[k] = Math.floor(rand() * 256);
      r.reset(bytes);
      const q = serializeSmallestThree(r, [5, 5, 5, 5], bits);
      const length = Math.hypot(q[0], q[1], q[2], q[3]);
      assert.ok(Math.abs(length - 1) < 1e-12, `length ${length}`);
      if (bytes.length * 8 < 2 + 3 * bits) {
        assert.ok(!r.ok);
        assert.deepEqual(q, [0, 0, 0, 1]);
      } else assert.ok(r.ok);
    }
    // Every strict prefix of a valid encoding.
    const { bytes } = roundTrip(
      (s, x: number[]) => serializeSmallestThree(s, x, 16),
      [0.1, 0.7, -0.1, 0.7].map((c) => c / Math.hypot(0.1, 0.7, 0.1, 0.7)),
      [0, 0, 0, 0],
    );
    for (let len = 0; len < bytes.length; len++) {
      r.reset(bytes.subarray(0, len));
      const q = serializeSmallestThree(r, [5, 5, 5, 5], 16);
      assert.ok(!r.ok && /past the end/.test(r.reason ?? ''), `prefix ${len}: ${r.error}`);
      assert.deepEqual(q, [0, 0, 0, 1]);
    }
  });
});
