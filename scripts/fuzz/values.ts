import fc from 'fast-check';
import type { SchemaNode } from '../../src/schema/schema.js';
import type { CompressedFloat } from '../../src/serialize/compressed-float.js';
import { float32Problem } from '../../src/serialize/float-bits.js';
import { utf8ByteLength } from './helpers.js';

// ---------------------------------------------------------------------------------------------
// Value arbitraries
// ---------------------------------------------------------------------------------------------

/**
 * One Unicode scalar value a string may carry (U+0000 excluded: the STANDARD refuses it), spread
 * over the 1-, 2-, 3- and 4-byte UTF-8 forms (astral included).
 */
export const codePointArb: fc.Arbitrary<string> = fc
  .oneof(
    { weight: 4, arbitrary: fc.integer({ min: 1, max: 0x7f }) },
    { weight: 2, arbitrary: fc.integer({ min: 0x80, max: 0x7ff }) },
    { weight: 2, arbitrary: fc.integer({ min: 0x800, max: 0xd7ff }) },
    { weight: 1, arbitrary: fc.integer({ min: 0xe000, max: 0xffff }) },
    { weight: 2, arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }) },
  )
  .map((c) => String.fromCodePoint(c));

/** Drops trailing code points until the UTF-8 form fits `maxBytes`. */
export function fitUtf8(text: string, maxBytes: number): string {
  if (utf8ByteLength(text) <= maxBytes) return text;
  let out = '';
  let bytes = 0;
  for (const c of text) {
    const size = utf8ByteLength(c);
    if (bytes + size > maxBytes) break;
    out += c;
    bytes += size;
  }
  return out;
}

/** Well-formed text of at most `maxBytes` UTF-8 bytes. */
export function textArb(maxBytes: number, maxCodePoints = 48): fc.Arbitrary<string> {
  return fc
    .string({ unit: codePointArb, maxLength: Math.min(maxBytes, maxCodePoints) })
    .map((text) => fitUtf8(text, maxBytes));
}

/** An integer in [min, max] for any safe bounds (fc.integer stops at 32 bits). */
export function intArb(min: number, max: number): fc.Arbitrary<number> {
  return fc.bigInt({ min: BigInt(min), max: BigInt(max) }).map(Number);
}

const unitComponent = fc.double({ min: -1, max: 1, noNaN: true });

/** Rotations for smallest-three: unit quaternions (length within the writer's 1e-3), ties, axes. */
export const rotationArb: fc.Arbitrary<number[]> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(
        unitComponent,
        unitComponent,
        unitComponent,
        unitComponent,
        fc.double({ min: -9e-4, max: 9e-4, noNaN: true }),
      )
      .filter(([x, y, z, w]) => Math.hypot(x, y, z, w) > 1e-3)
      .map(([x, y, z, w, e]) => {
        const k = (1 + e) / Math.hypot(x, y, z, w);
        return [x * k, y * k, z * k, w * k];
      }),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        [0, 0, 0, 1],
        [0, 0, 0, -1],
        [1, 0, 0, 0],
        [0.5, 0.5, 0.5, 0.5],
        [-0.5, 0.5, -0.5, 0.5],
        [0, -Math.SQRT1_2, Math.SQRT1_2, 0],
      )
      .map((q) => [...q]),
  },
);

/** float32 values a writer accepts: any float32, NaN and ±Infinity included, and doubles it rounds. */
export const float32ValueArb = fc.oneof(
  fc.float(),
  fc.double().filter((v) => float32Problem(v) === null),
);

/** Compressed float values a writer accepts: in range, or any finite value when the spec clamps. */
export const compressedValueArb = (spec: CompressedFloat, inRangeWeight: number): fc.Arbitrary<number> =>
  spec.clamp
    ? fc.oneof(
        { weight: inRangeWeight, arbitrary: fc.double({ min: spec.min, max: spec.max, noNaN: true }) },
        { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
      )
    : fc.double({ min: spec.min, max: spec.max, noNaN: true });

/** Values a writer accepts for `n` (compressed floats out of range only where the spec clamps). */
export function valueArb(n: SchemaNode, maxItems = 6): fc.Arbitrary<unknown> {
  switch (n.kind) {
    case 'bool':
      return fc.boolean();
    case 'int':
      return intArb(n.min, n.max);
    case 'entity':
      return intArb(-1, n.ids - 1);
    case 'int64':
      return fc.bigInt({ min: n.min, max: n.max });
    case 'float32':
      return float32ValueArb;
    case 'float64':
      return fc.double();
    case 'float':
      return compressedValueArb(n.spec, 6);
    case 'string':
      return textArb(n.maxBytes);
    case 'bytes':
      return fc.uint8Array({ maxLength: Math.min(n.maxLength, 80) });
    case 'enum':
      return fc.constantFrom(...n.values);
    case 'quaternion':
      return fc.array(fc.float(), { minLength: 4, maxLength: 4 });
    case 'smallestThree':
      return rotationArb;
    case 'object': {
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      const required: string[] = [];
      for (const key in n.fields) {
        model[key] = valueArb(n.fields[key], maxItems);
        // An absent optional field named like an Object.prototype member (toString, constructor)
        // reads the inherited member and cannot be written: such keys are always set (maybe to
        // undefined), and only other optional keys are sometimes left out.
        if (n.fields[key].kind !== 'optional' || key in Object.prototype) required.push(key);
      }
      return fc.record(model, { requiredKeys: required });
    }
    case 'array':
      return fc.array(valueArb(n.item, maxItems), { maxLength: Math.min(n.maxLength, maxItems) });
    case 'tuple':
      return fc.array(valueArb(n.item, maxItems), { minLength: n.length, maxLength: n.length });
    case 'optional':
      return fc.oneof(
        { weight: 3, arbitrary: valueArb(n.inner, maxItems) },
        { weight: 1, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constant(null) },
      );
  }
}
