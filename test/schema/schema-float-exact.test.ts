import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compile } from '../../src/schema/codec.js';
import { t } from '../../src/schema/schema.js';
import {
  type CompressedFloat,
  compressedFloat,
  dequantize,
  quantize,
} from '../../src/serialize/compressed-float.js';
import { WriteStream } from '../../src/serialize/write-stream.js';
import { testSeed } from '../support/seed.js';

/**
 * The generated code quantizes and dequantizes compressed floats with a multiply by the double
 * reciprocal where the reference divides in float32 (docs/serialization.md, "Compressed floats
 * without division"): it must give the interpreter's bits for every integer read and every value
 * written.
 */
const RANGES: [number, number, number][] = [
  [-512, 512, 0.01], // W1 position, lobby x / y
  [-0.7072, 0.7072, 0.001], // W1 orientation
  [-32, 32, 0.01], // W1 velocity
  [-Math.PI, Math.PI, 0.001], // lobby heading
  [0, 1, 0.0001],
  [0, 1, 1 / 3],
  [-1e-30, 3e-30, 1e-36],
  [0, 1e6, 0.07],
  [-7, 13, 0.000003],
];

const f32 = Math.fround;
/** The reference's arithmetic, dividing in float32, for values in the range. */
const referenceQuantize = (value: number, spec: CompressedFloat): number => {
  const q = Math.min(1, f32(f32(f32(value) - spec.min) / spec.delta));
  return Math.min(Math.floor(f32(f32(q * spec.maxIntegerF32) + 0.5)), spec.maxInteger);
};
const referenceDequantize = (u: number, spec: CompressedFloat): number =>
  f32(f32(f32(f32(u) / spec.maxIntegerF32) * spec.delta) + spec.min);

function codecs(min: number, max: number, resolution: number, clamp = true) {
  const schema = t.object({ f: t.float(min, max, resolution, { clamp }) });
  return [compile(schema), compile(schema, { codegen: false })] as const;
}

describe('compressed floats without division', () => {
  it('every integer decodes to the interpreter value (exhaustive up to 2^17 steps)', () => {
    for (const [min, max, resolution] of RANGES) {
      const [compiled, interpreted] = codecs(min, max, resolution);
      const spec = compressedFloat(min, max, resolution);
      const ws = new WriteStream(8);
      const last = Math.min(spec.maxInteger, 2 ** 17);
      for (let u = 0; u <= last; u++) {
        ws.reset();
        ws.bits(u, spec.bits);
        const bytes = ws.finish().slice();
        const c = compiled.decode(bytes);
        const i = interpreted.decode(bytes);
        assert.ok(c.ok && i.ok, `[${min}, ${max}] @ ${resolution}: ${u} refused`);
        assert.ok(Object.is(dequantize(u, spec), referenceDequantize(u, spec)), `dequantize ${u}`);
        assert.ok(
          Object.is(c.value.f, i.value.f),
          `[${min}, ${max}] @ ${resolution}: ${u} -> ${c.value.f} / ${i.value.f}`,
        );
      }
    }
  });

  it('random values, bounds, neighbours of steps and tiny values encode to the interpreter bits', () => {
    let x = testSeed('compressed floats without division') || 1;
    const next = () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) / 2 ** 32;
    };
    for (const [min, max, resolution] of RANGES) {
      const [compiled, interpreted] = codecs(min, max, resolution);
      // Without clamping, values in the range take a shorter path (no test for q < 0).
      const [strict, strictTwin] = codecs(min, max, resolution, false);
      const spec = compressedFloat(min, max, resolution);
      const values = [
        min,
        max,
        spec.maxDecoded,
        Math.fround(max) * (1 + 2 ** -23),
        0,
        -0,
        1e-45,
        -1e-45,
        1e-39,
        1.1754943508222875e-38,
        2 ** -126 + 2 ** -140,
      ];
      const step =
        (Math.fround(max) - Math.fround(min)) / Math.ceil((Math.fround(max) - Math.fround(min)) / resolution);
      for (let k = 0; k < 20000; k++) {
        const v = min + next() * (max - min);
        values.push(v);
        // Values a hair either side of a step's midpoint, where rounding decides.
        const mid = min + (Math.floor((next() * (max - min)) / step) + 0.5) * step;
        values.push(mid, Math.fround(mid), mid * (1 + 2 ** -24), mid * (1 - 2 ** -24));
      }
      for (const v of values) {
        const c = [...compiled.encode({ f: v })];
        const i = [...interpreted.encode({ f: v })];
        assert.deepEqual(c, i, `[${min}, ${max}] @ ${resolution}: ${v}`);
        const f = Math.fround(v);
        if (f >= spec.min && f <= spec.maxDecoded) {
          assert.equal(quantize(v, spec), referenceQuantize(v, spec), `quantize ${v}`);
          const s = [...strict.encode({ f: v })];
          assert.deepEqual(
            s,
            [...strictTwin.encode({ f: v })],
            `[${min}, ${max}] @ ${resolution}, no clamp: ${v}`,
          );
          assert.deepEqual(s, i, `[${min}, ${max}] @ ${resolution}: ${v} clamped and not`);
        }
      }
    }
  });
});
