/**
 * The fuzz core, shared by `npm run fuzz` (scripts/fuzz.ts) and the short seeded run in `npm test`
 * (test/fuzz.test.ts), so the logic exists once:
 *
 * - value models: fast-check arbitraries for schema values and for stream op programs, and
 *   schema-directed comparisons (exact, and "survived a round trip" with quantization tolerances);
 * - targets: every reader of hostile bytes, each with a corpus of valid encodings and the
 *   semantic checks its accepted inputs must pass;
 * - input makers: random buffers and mutations of valid encodings;
 * - the loop, which counts outcomes, samples memory and stops at the first exception that escapes
 *   a reader.
 *
 * Everything is a function of one seed: a run is replayed by its seed, target and iteration count.
 */
import fc from 'fast-check';
import { type GameState, generateW1 } from '../bench/w1/data.js';
import { GameStateSchema, gameStateCodec, gameStateInterpreted } from '../bench/w1/schema.js';
import { serializeGameState } from '../bench/w1/stream.js';
import { prng, randomInt } from '../src/random/prng.js';
import { type Codec, compile, type DecodeResult } from '../src/schema/codec.js';
import { type SchemaNode, t } from '../src/schema/schema.js';
import { type CompressedFloat, compressedFloat } from '../src/serialize/compressed-float.js';
import { crc32 } from '../src/serialize/crc32.js';
import { PacketEnvelope } from '../src/serialize/envelope.js';
import { float32Problem } from '../src/serialize/float-bits.js';
import { MeasureStream } from '../src/serialize/measure-stream.js';
import { ReadStream } from '../src/serialize/read-stream.js';
import type { Stream } from '../src/serialize/stream.js';
import {
  SUBSET_TAG_BITMASK,
  SUBSET_TAG_INDICES,
  SUBSET_TAG_RELATIVE,
  SUBSET_TAG_SENTINEL,
  serializeSubset,
  serializeSubsetBitmask,
  serializeSubsetIndices,
  serializeSubsetRelative,
  serializeSubsetSentinel,
} from '../src/serialize/subset.js';
import { WriteStream } from '../src/serialize/write-stream.js';
import { sameBytes } from './bytes.js';
import { DECODE_BOUND_TARGET, decodeBoundTarget } from './decode-bound-target.js';
import { memoryProbe } from './memory-probe.js';

const f32 = Math.fround;

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex');
}

export { sameBytes };

function fnv1a32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** An independent seed for one purpose (a target's inputs, its corpus, ...) from the run's seed. */
export function deriveSeed(seed: number, label: string): number {
  return (Math.imul(seed >>> 0, 0x9e3779b1) ^ fnv1a32(label)) >>> 0;
}

/** A short printable form of any value (bigints, -0, bytes and NaN included). */
export function show(value: unknown, limit = 160): string {
  let text: string;
  if (typeof value === 'bigint') text = `${value}n`;
  else if (typeof value === 'number') text = Object.is(value, -0) ? '-0' : String(value);
  else if (value instanceof Uint8Array) text = `bytes(${value.length}) ${hex(value.subarray(0, 32))}`;
  else if (value === undefined) text = 'undefined';
  else {
    try {
      text = JSON.stringify(value, (_key, v) =>
        typeof v === 'bigint'
          ? `${v}n`
          : typeof v === 'number' && !Number.isFinite(v)
            ? String(v)
            : v instanceof Uint8Array
              ? `bytes:${hex(v)}`
              : v,
      );
    } catch {
      text = String(value);
    }
  }
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

/** UTF-8 byte length, computed by Node rather than by the code under test. */
export function utf8ByteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

// ---------------------------------------------------------------------------------------------
// Quantization tolerances (documented bounds, computed independently of the implementation)
// ---------------------------------------------------------------------------------------------

/** Where a compressed float written as `x` should land: x as float32, clamped (a clamping spec). */
export function compressedFloatTarget(spec: CompressedFloat, x: number): number {
  const v = f32(x);
  if (!(v >= spec.min)) return spec.min;
  return Math.min(v, spec.max);
}

/**
 * Half a quantization step, plus the float32 arithmetic the reference does (a few units of 2^-24
 * of the range's magnitude: negligible for ranges up to ~20 bits, dominant beyond 24).
 */
export function compressedFloatTolerance(spec: CompressedFloat): number {
  const step = spec.delta / spec.maxInteger;
  const magnitude = Math.max(Math.abs(spec.min), Math.abs(spec.max), spec.delta);
  return step / 2 + 8 * 2 ** -24 * magnitude;
}

export function compressedFloatMismatch(
  spec: CompressedFloat,
  written: number,
  read: unknown,
): string | null {
  if (typeof read !== 'number') return `expected a number, read ${show(read)}`;
  const target = compressedFloatTarget(spec, written);
  const error = Math.abs(read - target);
  const tolerance = compressedFloatTolerance(spec);
  return error <= tolerance
    ? null
    : `compressed float [${spec.min}, ${spec.max}] @ ${spec.resolution}: wrote ${show(written)}, read ${show(read)}, error ${error} > ${tolerance}`;
}

/**
 * A smallest-three read against what was written. The writer normalises q, flips it so its largest
 * component (first on a tie) is non-negative and sends the other three rounded to a step of
 * 2/sqrt(2)/(2^bits - 1): each is off by at most half a step (a little more at 2 or 3 bits, where the
 * reader may renormalise). The rebuilt largest, sqrt(1 - sum of squares), is off by at most
 * 3 (step/2)(2 bound + step/2) / q[largest]; q[largest] >= 1/2 for a unit quaternion.
 */
export function smallestThreeMismatch(
  bits: number,
  written: ArrayLike<number>,
  read: unknown,
): string | null {
  if (!Array.isArray(read) || read.length !== 4) return `expected [x, y, z, w], read ${show(read)}`;
  const bound = Math.SQRT1_2;
  const step = (2 * bound) / (2 ** bits - 1);
  const half = step / 2;
  let largest = 0;
  for (let i = 1; i < 4; i++) if (Math.abs(written[i]) > Math.abs(written[largest])) largest = i;
  const length = Math.hypot(written[0], written[1], written[2], written[3]);
  const sign = written[largest] < 0 ? -1 : 1;
  const expected = [0, 1, 2, 3].map((i) => (sign * written[i]) / length);
  const readLength = Math.hypot(read[0], read[1], read[2], read[3]);
  if (!(Math.abs(readLength - 1) <= 1e-9)) return `read quaternion ${show(read)} has length ${readLength}`;
  for (let i = 0; i < 4; i++) {
    const tolerance =
      i === largest
        ? (3 * half * (2 * bound + half)) / expected[largest] + 1e-9
        : (bits >= 4 ? half : step) + 1e-9;
    const error = Math.abs(read[i] - expected[i]);
    if (!(error <= tolerance)) {
      return `smallest-three (${bits} bits) component ${i}: wrote ${show(written)}, read ${show(read)}, error ${error} > ${tolerance}`;
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Schema-directed comparison
// ---------------------------------------------------------------------------------------------

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

const at = (path: string) => path || 'value';

/**
 * The first difference between two decoded values of `n`, or null when equal: numbers by
 * Object.is (NaN equals NaN, 0 differs from -0), bytes by content, objects field by field with the
 * same number of keys, arrays item by item.
 */
export function diffExact(n: SchemaNode, a: unknown, b: unknown, path = ''): string | null {
  switch (n.kind) {
    case 'bool':
    case 'int':
    case 'int64':
    case 'float32':
    case 'float64':
    case 'float':
    case 'string':
    case 'enum':
      return Object.is(a, b) ? null : `${at(path)}: ${show(a)} vs ${show(b)}`;
    case 'bytes':
      return a instanceof Uint8Array && b instanceof Uint8Array && sameBytes(a, b)
        ? null
        : `${at(path)}: ${show(a)} vs ${show(b)}`;
    case 'quaternion':
    case 'smallestThree': {
      if (!Array.isArray(a) || !Array.isArray(b) || a.length !== 4 || b.length !== 4)
        return `${at(path)}: ${show(a)} vs ${show(b)}`;
      for (let i = 0; i < 4; i++) if (!Object.is(a[i], b[i])) return `${at(path)}: ${show(a)} vs ${show(b)}`;
      return null;
    }
    case 'object': {
      if (!isRecord(a) || !isRecord(b)) return `${at(path)}: ${show(a)} vs ${show(b)}`;
      if (Object.keys(a).length !== Object.keys(b).length)
        return `${at(path)}: keys ${show(Object.keys(a))} vs ${show(Object.keys(b))}`;
      for (const key in n.fields) {
        const d = diffExact(n.fields[key], a[key], b[key], `${path}.${key}`);
        if (d !== null) return d;
      }
      return null;
    }
    case 'array':
    case 'tuple': {
      if (!Array.isArray(a) || !Array.isArray(b)) return `${at(path)}: ${show(a)} vs ${show(b)}`;
      if (a.length !== b.length) return `${at(path)}: length ${a.length} vs ${b.length}`;
      for (let i = 0; i < a.length; i++) {
        const d = diffExact(n.item, a[i], b[i], `${path}[${i}]`);
        if (d !== null) return d;
      }
      return null;
    }
    case 'optional':
      if (a === undefined || b === undefined) return a === b ? null : `${at(path)}: ${show(a)} vs ${show(b)}`;
      return diffExact(n.inner, a, b, path);
  }
}

/**
 * The first way `read` fails to be what writing `written` should read back as, or null: exact for
 * lossless kinds, float32 rounding for float32 and quaternion, the quantization bounds above for
 * compressed floats and smallest-three; an absent optional (undefined or null) reads as undefined.
 */
export function diffRoundTrip(n: SchemaNode, written: unknown, read: unknown, path = ''): string | null {
  const mismatch = (detail: string) => `${at(path)}: ${detail}`;
  switch (n.kind) {
    case 'bool':
    case 'int':
    case 'int64':
    case 'float64':
    case 'string':
    case 'enum':
      return Object.is(written, read) ? null : mismatch(`wrote ${show(written)}, read ${show(read)}`);
    case 'float32':
      return Object.is(f32(written as number), read)
        ? null
        : mismatch(`wrote ${show(written)}, read ${show(read)}`);
    case 'float': {
      const d = compressedFloatMismatch(n.spec, written as number, read);
      return d === null ? null : mismatch(d);
    }
    case 'bytes':
      return read instanceof Uint8Array && sameBytes(written as Uint8Array, read)
        ? null
        : mismatch(`wrote ${show(written)}, read ${show(read)}`);
    case 'quaternion': {
      const w = written as number[];
      if (!Array.isArray(read) || read.length !== 4) return mismatch(`read ${show(read)}`);
      for (let i = 0; i < 4; i++)
        if (!Object.is(read[i], f32(w[i]))) return mismatch(`wrote ${show(w)}, read ${show(read)}`);
      return null;
    }
    case 'smallestThree': {
      const d = smallestThreeMismatch(n.bits, written as number[], read);
      return d === null ? null : mismatch(d);
    }
    case 'object': {
      if (!isRecord(read)) return mismatch(`read ${show(read)}`);
      const w = written as Record<string, unknown>;
      for (const key in n.fields) {
        if (!(key in read)) return mismatch(`field ${key} missing from the value read`);
        const d = diffRoundTrip(n.fields[key], w[key], read[key], `${path}.${key}`);
        if (d !== null) return d;
      }
      return null;
    }
    case 'array':
    case 'tuple': {
      const w = written as unknown[];
      if (!Array.isArray(read)) return mismatch(`read ${show(read)}`);
      if (read.length !== w.length) return mismatch(`wrote ${w.length} items, read ${read.length}`);
      for (let i = 0; i < w.length; i++) {
        const d = diffRoundTrip(n.item, w[i], read[i], `${path}[${i}]`);
        if (d !== null) return d;
      }
      return null;
    }
    case 'optional':
      if (written === undefined || written === null)
        return read === undefined ? null : mismatch(`wrote ${show(written)}, read ${show(read)}`);
      if (read === undefined) return mismatch(`wrote ${show(written)}, read undefined`);
      return diffRoundTrip(n.inner, written, read, path);
  }
}

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
function fitUtf8(text: string, maxBytes: number): string {
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
const float32ValueArb = fc.oneof(
  fc.float(),
  fc.double().filter((v) => float32Problem(v) === null),
);

/** Compressed float values a writer accepts: in range, or any finite value when the spec clamps. */
const compressedValueArb = (spec: CompressedFloat, inRangeWeight: number): fc.Arbitrary<number> =>
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

// ---------------------------------------------------------------------------------------------
// Stream op programs: every primitive of the Stream interface with in-range arguments
// ---------------------------------------------------------------------------------------------

export type Op =
  | { readonly op: 'bits'; readonly bits: number; readonly value: number }
  | { readonly op: 'bool'; readonly value: boolean }
  | { readonly op: 'int'; readonly min: number; readonly max: number; readonly value: number }
  | { readonly op: 'uint8' | 'uint16' | 'uint32'; readonly value: number }
  | { readonly op: 'bits64'; readonly bits: number; readonly value: bigint }
  | { readonly op: 'int64'; readonly min: bigint; readonly max: bigint; readonly value: bigint }
  | { readonly op: 'uint64'; readonly value: bigint }
  | { readonly op: 'float32' | 'float64'; readonly value: number }
  | { readonly op: 'compressedFloat'; readonly spec: CompressedFloat; readonly value: number }
  | { readonly op: 'align' | 'check' }
  | { readonly op: 'bytes'; readonly value: Uint8Array }
  | { readonly op: 'string'; readonly maxBytes: number; readonly value: string }
  | { readonly op: 'intRelative' | 'sequenceRelative'; readonly previous: number; readonly value: number };

export type OpValue = number | boolean | bigint | string | Uint8Array | undefined;

/** The value an op writes (undefined for align and check). */
export function opValue(op: Op): OpValue {
  return 'value' in op ? op.value : undefined;
}

/** Runs one op on any stream with `value` (ignored when reading); returns what the stream returned. */
export function runOp(s: Stream, op: Op, value: OpValue = opValue(op)): OpValue {
  switch (op.op) {
    case 'bits':
      return s.bits(value as number, op.bits);
    case 'bool':
      return s.bool(value as boolean);
    case 'int':
      return s.int(value as number, op.min, op.max);
    case 'uint8':
      return s.uint8(value as number);
    case 'uint16':
      return s.uint16(value as number);
    case 'uint32':
      return s.uint32(value as number);
    case 'bits64':
      return s.bits64(value as bigint, op.bits);
    case 'int64':
      return s.int64(value as bigint, op.min, op.max);
    case 'uint64':
      return s.uint64(value as bigint);
    case 'float32':
      return s.float32(value as number);
    case 'float64':
      return s.float64(value as number);
    case 'compressedFloat':
      return s.compressedFloat(value as number, op.spec);
    case 'align':
      s.align();
      return undefined;
    case 'check':
      s.check();
      return undefined;
    case 'bytes':
      return s.bytes(value as Uint8Array, op.value.length);
    case 'string':
      return s.string(value as string, op.maxBytes);
    case 'intRelative':
      return s.intRelative(op.previous, value as number);
    case 'sequenceRelative':
      return s.sequenceRelative(op.previous, value as number);
  }
}

/** Null when `read` is what writing `written` through `op` must read back as. */
export function opValueMismatch(op: Op, written: OpValue, read: OpValue): string | null {
  switch (op.op) {
    case 'align':
    case 'check':
      return null;
    case 'float32':
      return Object.is(read, f32(written as number)) ? null : `wrote ${show(written)}, read ${show(read)}`;
    case 'compressedFloat':
      return compressedFloatMismatch(op.spec, written as number, read);
    case 'bytes':
      return read instanceof Uint8Array && sameBytes(written as Uint8Array, read)
        ? null
        : `wrote ${show(written)}, read ${show(read)}`;
    default:
      return Object.is(read, written) ? null : `wrote ${show(written)}, read ${show(read)}`;
  }
}

/** Whether an op can make a MeasureStream count more than is written (alignment, charged at worst). */
export function opAligns(op: Op): boolean {
  return op.op === 'align' || op.op === 'bytes' || op.op === 'string' || op.op === 'check';
}

export function describeOp(op: Op): string {
  switch (op.op) {
    case 'align':
    case 'check':
      return op.op;
    case 'bits':
    case 'bits64':
      return `${op.op}(${show(op.value)}, ${op.bits})`;
    case 'int':
    case 'int64':
      return `${op.op}(${show(op.value)}, ${show(op.min)}, ${show(op.max)})`;
    case 'compressedFloat':
      return `compressedFloat(${show(op.value)}, [${op.spec.min}, ${op.spec.max}] @ ${op.spec.resolution})`;
    case 'string':
      return `string(${JSON.stringify(op.value)}, ${op.maxBytes})`;
    case 'intRelative':
    case 'sequenceRelative':
      return `${op.op}(${op.previous}, ${op.value})`;
    default:
      return `${op.op}(${show(op.value)})`;
  }
}

const u32Arb = (max: number) => intArb(0, max);

/** [min, max] as int allows them: safe integers with max - min < 2^32 (0, small, full 32 bits). */
export const intBoundsArb: fc.Arbitrary<[number, number]> = fc
  .tuple(
    fc.oneof(fc.integer({ min: -1000, max: 1000 }), intArb(-(2 ** 40), 2 ** 40)),
    fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 200 }), u32Arb(0xffffffff), fc.constant(0xffffffff)),
  )
  .map(([min, range]): [number, number] => [min, min + range]);

/** A difference spread over the relative-encoding tiers (1, 2-6, 7-23, 24-280, 281-4377, 4378-69914, beyond). */
const tierDifferenceArb = (max: number) =>
  fc
    .oneof(
      fc.constant(1),
      fc.integer({ min: 2, max: 6 }),
      fc.integer({ min: 7, max: 23 }),
      fc.integer({ min: 24, max: 280 }),
      fc.integer({ min: 281, max: 4377 }),
      fc.integer({ min: 4378, max: 69914 }),
      u32Arb(0xffffffff),
    )
    .map((d) => Math.max(1, Math.min(d, max)));

/**
 * The largest maxInteger the random specs use: from 2^23 steps up float32 cannot resolve a step,
 * so "within half a step" no longer bounds a round trip. The writer's clamp of the top value there
 * is pinned by explicit tests in test/stream-property.test.ts and test/schema-property.test.ts.
 */
export const SOUND_COMPRESSED_MAX_INTEGER = 2 ** 23 - 1;

/** Compressed float ranges from 1 value to 23 bits, with resolutions that do not divide the span. */
export const compressedSpecArb: fc.Arbitrary<CompressedFloat> = fc
  .record({
    min: fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.double({ min: -1e4, max: 1e4, noNaN: true })),
    span: fc.double({ min: 1e-3, max: 4096, noNaN: true }),
    bits: fc.integer({ min: 0, max: 23 }),
    skew: fc.double({ min: 0.6, max: 1.4, noNaN: true }),
    clamp: fc.boolean(),
  })
  .map(({ min, span, bits, skew, clamp }) => {
    try {
      return compressedFloat(min, min + span, (span / 2 ** bits) * skew, { clamp });
    } catch {
      return null;
    }
  })
  .filter(
    (spec): spec is CompressedFloat => spec !== null && spec.maxInteger <= SOUND_COMPRESSED_MAX_INTEGER,
  );

/** [min, max] as t.int64 allows them: min >= -2^63, max < 2^64, max - min < 2^64. */
export const int64BoundsArb: fc.Arbitrary<[bigint, bigint]> = fc
  .tuple(
    fc.oneof(
      fc.bigInt({ min: -(1n << 63n), max: (1n << 64n) - 1n }),
      fc.bigInt({ min: -1000n, max: 1000n }),
      fc.constantFrom(-(1n << 63n), 0n, (1n << 63n) - 1n),
    ),
    fc.oneof(
      fc.constant(0n),
      fc.bigInt({ min: 1n, max: 1000n }),
      fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
      fc.constantFrom((1n << 32n) - 1n, 1n << 32n, (1n << 63n) - 1n, (1n << 64n) - 1n),
    ),
  )
  .map(([min, range]): [bigint, bigint] => {
    const limit = min >= 0n ? (1n << 64n) - 1n - min : (1n << 64n) - 1n;
    return [min, min + (range < limit ? range : limit)];
  });

/** One op with in-range arguments and a value its writer accepts. */
export const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc
    .integer({ min: 1, max: 32 })
    .chain((bits) => u32Arb(2 ** bits - 1).map((value): Op => ({ op: 'bits', bits, value }))),
  fc.boolean().map((value): Op => ({ op: 'bool', value })),
  intBoundsArb.chain(([min, max]) =>
    u32Arb(max - min).map((offset): Op => ({ op: 'int', min, max, value: min + offset })),
  ),
  u32Arb(0xff).map((value): Op => ({ op: 'uint8', value })),
  u32Arb(0xffff).map((value): Op => ({ op: 'uint16', value })),
  u32Arb(0xffffffff).map((value): Op => ({ op: 'uint32', value })),
  fc
    .integer({ min: 1, max: 64 })
    .chain((bits) =>
      fc
        .bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n })
        .map((value): Op => ({ op: 'bits64', bits, value })),
    ),
  int64BoundsArb.chain(([min, max]) =>
    fc.bigInt({ min, max }).map((value): Op => ({ op: 'int64', min, max, value })),
  ),
  fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map((value): Op => ({ op: 'uint64', value })),
  float32ValueArb.map((value): Op => ({ op: 'float32', value })),
  fc.double().map((value): Op => ({ op: 'float64', value })),
  compressedSpecArb.chain((spec) =>
    compressedValueArb(spec, 5).map((value): Op => ({ op: 'compressedFloat', spec, value })),
  ),
  fc.constant<Op>({ op: 'align' }),
  fc.constant<Op>({ op: 'check' }),
  fc.uint8Array({ maxLength: 40 }).map((value): Op => ({ op: 'bytes', value })),
  fc
    .tuple(
      textArb(160, 40),
      fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 40 }), fc.constantFrom(1000, 65535, 0xffffffff)),
    )
    .map(([value, slack]): Op => {
      const length = utf8ByteLength(value);
      return { op: 'string', value, maxBytes: Math.min(length + slack, 0xffffffff) };
    }),
  fc
    .oneof(u32Arb(0xfffffffe), fc.integer({ min: 0, max: 100 }), fc.constant(0xfffffffe))
    .chain((previous) =>
      tierDifferenceArb(0xffffffff - previous).map(
        (d): Op => ({ op: 'intRelative', previous, value: previous + d }),
      ),
    ),
  fc
    .tuple(u32Arb(0xffff), tierDifferenceArb(0xffff))
    .map(([previous, d]): Op => ({ op: 'sequenceRelative', previous, value: (previous + d) % 65536 })),
);

export const programArb: fc.Arbitrary<Op[]> = fc.array(opArb, { maxLength: 30 });

/**
 * Ops whose every accepted encoding is the one the writer produces, so an accepted input must
 * re-encode to itself byte for byte (padding included). Left out: float32 / float64 (NaN payloads
 * are not kept), compressed floats (neighbouring steps can read as the same float32), and the
 * relative encodings (a small difference may also arrive in the absolute form).
 */
const CANONICAL_OPS: ReadonlySet<Op['op']> = new Set([
  'bits',
  'bool',
  'int',
  'uint8',
  'uint16',
  'uint32',
  'bits64',
  'int64',
  'uint64',
  'align',
  'check',
  'bytes',
  'string',
]);

export const canonicalProgramArb: fc.Arbitrary<Op[]> = fc.array(
  opArb.filter((op) => CANONICAL_OPS.has(op.op)),
  { maxLength: 30 },
);

/** Writes a program; returns a copy of the bytes and the bits written. */
export function writeProgram(
  ops: readonly Op[],
  values?: readonly OpValue[],
): { bytes: Uint8Array; bits: number } {
  const valueAt = (i: number) => (values === undefined ? opValue(ops[i]) : values[i]);
  const m = new MeasureStream();
  for (let i = 0; i < ops.length; i++) runOp(m, ops[i], valueAt(i));
  const ws = new WriteStream(m.bytesProcessed + 16);
  for (let i = 0; i < ops.length; i++) runOp(ws, ops[i], valueAt(i));
  return { bytes: ws.finish().slice(), bits: ws.bitsProcessed };
}

// ---------------------------------------------------------------------------------------------
// Targets
// ---------------------------------------------------------------------------------------------

/** An exception that escaped a reader (or a reader reporting it caught one internally). */
export class ReaderCrash extends Error {
  constructor(
    readonly reader: string,
    readonly error: unknown,
  ) {
    super(`${reader} threw: ${error instanceof Error ? (error.stack ?? error.message) : show(error)}`);
  }
}

/** What a target reports through while it runs one input. */
export interface Recorder {
  /** Runs reader `reader` (an index into the target's readers): an exception escaping it is a crash. */
  read<T>(reader: number, fn: () => T): T;
  /** The reader's verdict; a reason naming a swallowed exception counts as a crash. */
  outcome(reader: number, accepted: boolean, reason?: string | null): void;
  /** A semantic check: a returned message or a thrown error (other than a crash) is a failure. */
  check(name: string, fn: () => string | null | undefined): void;
}

export interface CorpusEntry<C> {
  readonly bytes: Uint8Array;
  readonly context: C;
  /** Relative chance of being picked as a base (default 1). */
  readonly weight?: number;
}

export interface Target<C = unknown> {
  readonly name: string;
  readonly description: string;
  readonly readers: readonly string[];
  readonly corpus: readonly CorpusEntry<C>[];
  /** Fix-up of every input before it is run (the envelope re-stamps some CRCs). */
  prepare?(input: Uint8Array, rng: () => number): void;
  run(input: Uint8Array, context: C, iteration: number, r: Recorder): void;
}

/** Reasons that mean a reader caught an exception of its own: the input found a bug. */
const SWALLOWED = /internal error while reading|serialize threw/;

export const TARGET_NAMES = ['w1', 'kinds', 'envelope', 'subset', 'ops', DECODE_BOUND_TARGET] as const;
export type TargetName = (typeof TARGET_NAMES)[number];

export function createTarget(name: string, seed: number): Target<unknown> {
  const corpusSeed = deriveSeed(seed, `${name}/corpus`);
  switch (name) {
    case 'w1':
      return w1Target(corpusSeed) as Target<unknown>;
    case 'kinds':
      return kindsTarget(corpusSeed) as Target<unknown>;
    case 'envelope':
      return envelopeTarget(corpusSeed) as Target<unknown>;
    case 'subset':
      return subsetTarget(corpusSeed) as Target<unknown>;
    case 'ops':
      return opsTarget(corpusSeed) as Target<unknown>;
    case DECODE_BOUND_TARGET:
      return decodeBoundTarget(corpusSeed, valueArb) as Target<unknown>;
    default:
      throw new Error(`unknown fuzz target ${JSON.stringify(name)} (known: ${TARGET_NAMES.join(', ')})`);
  }
}

const verdict = (r: DecodeResult<unknown>) => (r.ok ? 'accepted' : `rejected (${r.error})`);

/**
 * A compiled codec and its interpreted twin fed the same input, alternately fresh and into a
 * target object kept across inputs (so decoding into stale, partly filled targets is fuzzed too).
 * When both accept: equal values; the value re-encodes to the same bytes through both codecs and
 * decodes back to itself. Returns the accepted value (or null).
 */
function runCodecPair(
  schema: SchemaNode,
  compiled: Codec<unknown>,
  interpreted: Codec<unknown>,
  targets: { compiled: unknown; interpreted: unknown },
  input: Uint8Array,
  iteration: number,
  r: Recorder,
  first: number,
  canonical: boolean,
): DecodeResult<unknown> {
  const reuse = (iteration & 1) === 1;
  const c = r.read(first, () => (reuse ? compiled.decode(input, targets.compiled) : compiled.decode(input)));
  r.outcome(first, c.ok, c.ok ? null : c.error);
  const i = r.read(first + 1, () =>
    reuse ? interpreted.decode(input, targets.interpreted) : interpreted.decode(input),
  );
  r.outcome(first + 1, i.ok, i.ok ? null : i.error);
  if (reuse) {
    // Keep what was decoded into (a fresh object when the target was not one) for the next input.
    if (c.ok) targets.compiled = c.value;
    if (i.ok) targets.interpreted = i.value;
  }
  r.check('compiled and interpreted accept alike', () =>
    c.ok === i.ok ? null : `compiled ${verdict(c)}, interpreted ${verdict(i)}`,
  );
  if (!c.ok || !i.ok) return c;
  r.check('compiled and interpreted decode equal values', () => diffExact(schema, c.value, i.value));
  r.check('an accepted value re-encodes and decodes to itself', () => {
    const again = compiled.encode(c.value);
    const twin = interpreted.encode(i.value);
    if (!sameBytes(again, twin)) return `compiled encodes ${hex(again)}, interpreted ${hex(twin)}`;
    if (canonical && !sameBytes(again, input))
      return `accepted input is not the canonical encoding of its value: re-encoded ${again.length} bytes ${hex(again.subarray(0, 64))}…`;
    const back = r.read(first, () => compiled.decode(again));
    if (!back.ok) return `re-encoded value rejected: ${back.error}`;
    const backI = r.read(first + 1, () => interpreted.decode(twin));
    if (!backI.ok) return `re-encoded value rejected by the interpreter: ${backI.error}`;
    return diffRoundTrip(schema, c.value, back.value) ?? diffExact(schema, back.value, backI.value);
  });
  return c;
}

/** Every corpus entry must be accepted: otherwise the harness, not the input, is broken. */
function assertCorpusAccepted<C>(target: Target<C>): void {
  for (let k = 0; k < target.corpus.length; k++) {
    const entry = target.corpus[k];
    const verdicts: string[] = [];
    target.run(entry.bytes, entry.context, 0, {
      read: (_reader, fn) => fn(),
      outcome: (reader, accepted, reason) => {
        if (!accepted) verdicts.push(`${target.readers[reader]}: ${reason}`);
      },
      check: (name, fn) => {
        const d = fn();
        if (d) verdicts.push(`${name}: ${d}`);
      },
    });
    if (verdicts.length > 0)
      throw new Error(
        `${target.name}: corpus entry ${k} (${hex(entry.bytes)}) fails: ${verdicts.join('; ')}`,
      );
  }
}

/** W1 (ids, compressed vectors, flags; up to 1000 entities): the hand-written reader and both codecs. */
function w1Target(seed: number): Target<null> {
  const rng = prng(seed);
  const corpus: CorpusEntry<null>[] = [];
  const add = (state: GameState) => {
    const bytes = gameStateCodec.encode(state).slice();
    // Big packets are costly to read: picked less often, so the run covers more inputs.
    corpus.push({ bytes, context: null, weight: 1 / (1 + bytes.length / 2048) });
  };
  for (const count of [0, 1, 1, 2, 3, 4, 5, 6, 8, 10, 13, 16, 20, 25, 32, 48, 64, 100, 160, 250, 400, 1000]) {
    add(generateW1(count, (randomInt(rng, 0xfffffffe) + 1) >>> 0));
  }
  // Edge values: extremes of every range.
  for (const value of fc.sample(valueArb(GameStateSchema, 12), { seed, numRuns: 16 }))
    add(value as GameState);

  const rs = new ReadStream();
  const streamState: GameState = { entities: [] };
  const targets = { compiled: { entities: [] } as unknown, interpreted: { entities: [] } as unknown };
  const target: Target<null> = {
    name: 'w1',
    description: 'W1 game state: hand-written stream reader, compiled codec, interpreted codec',
    readers: ['w1-stream', 'w1-compiled', 'w1-interpreted'],
    corpus,
    run(input, _context, iteration, r) {
      const streamReason = r.read(0, () => {
        rs.reset(input);
        serializeGameState(rs, streamState);
        return rs.ok && rs.end() ? null : (rs.error ?? 'rejected');
      });
      r.outcome(0, streamReason === null, streamReason);
      const c = runCodecPair(
        GameStateSchema,
        gameStateCodec as Codec<unknown>,
        gameStateInterpreted as Codec<unknown>,
        targets,
        input,
        iteration,
        r,
        1,
        true,
      );
      r.check('hand-written reader accepts like the codecs', () =>
        (streamReason === null) === c.ok
          ? null
          : `stream ${streamReason ?? 'accepted'}, codecs ${verdict(c)}`,
      );
      if (streamReason === null && c.ok) {
        r.check('hand-written reader reads the codecs’ value', () =>
          diffExact(GameStateSchema, streamState, c.value),
        );
      }
    },
  };
  assertCorpusAccepted(target);
  // The corpus check leaves the stream state holding a value; start from empty like the codecs.
  streamState.entities.length = 0;
  return target;
}

const Item = t.object({
  kind: t.enum(['sword', 'shield', 'potion', 42, 'scroll']),
  count: t.int(-5, 250),
  tags: t.array(t.string(12), 3),
  blob: t.optional(t.bytes(20)),
});

/** Every schema kind, several widths of each, nested (the second fuzzed schema). */
export const KindsSchema = t.object({
  alive: t.bool(),
  id: t.uint32(),
  level: t.int(7, 7),
  offset: t.int(-1_000_000, 3_000_000),
  serial: t.int64(-(1n << 40n), 1n << 50n),
  tiny: t.int64(-3n, 3n),
  wide: t.int64(-(1n << 63n), (1n << 63n) - 1n),
  big: t.uint64(),
  ratio: t.float64(),
  speed: t.float32(),
  heading: t.float(-180, 180, 0.1),
  name: t.string(40),
  note: t.optional(t.string(300)),
  payload: t.bytes(64),
  rotation: t.quaternion(),
  facing: t.smallestThree(),
  coarse: t.smallestThree(2),
  fine: t.smallestThree(16),
  position: t.vector3(t.float(-100, 100, 0.05)),
  grid: t.array(t.array(t.int(0, 9), 5), 4),
  matrix: t.tuple(t.tuple(t.bool(), 3), 6),
  items: t.array(Item, 6),
  mode: t.enum(['a', 'b', 'c', 'd']),
  single: t.enum(['only']),
  extra: t.optional(t.object({ x: t.float(0, 1, 0.001), seen: t.array(t.uint16(), 4), 'odd key': t.bool() })),
});

function kindsTarget(seed: number): Target<null> {
  const compiled = compile(KindsSchema) as Codec<unknown>;
  const interpreted = compile(KindsSchema, { codegen: false }) as Codec<unknown>;
  const corpus: CorpusEntry<null>[] = fc
    .sample(valueArb(KindsSchema, 6), { seed, numRuns: 64 })
    .map((value) => ({ bytes: compiled.encode(value).slice(), context: null }));
  const targets = { compiled: undefined as unknown, interpreted: undefined as unknown };
  const target: Target<null> = {
    name: 'kinds',
    description: 'every schema kind: compiled codec and its interpreted twin',
    readers: ['kinds-compiled', 'kinds-interpreted'],
    corpus,
    run(input, _context, iteration, r) {
      runCodecPair(KindsSchema, compiled, interpreted, targets, input, iteration, r, 0, false);
    },
  };
  assertCorpusAccepted(target);
  return target;
}

interface Message {
  seq: number;
  id: number;
  health: number;
  alive: boolean;
  x: number;
  heading: number;
  name: string;
  tags: number[];
  token: bigint;
  note: string;
  ack: number;
}

const HEADING = compressedFloat(-180, 180, 0.5);

/** The envelope's payload: several primitives, a count-prefixed list and a field behind a flag. */
function serializeMessage(s: Stream, m: Message): void {
  m.seq = s.bits(m.seq, 16);
  m.id = s.int(m.id, 0, 4095);
  m.health = s.int(m.health, -100, 100);
  m.alive = s.bool(m.alive);
  m.x = s.float32(m.x);
  m.heading = s.compressedFloat(m.heading, HEADING);
  m.name = s.string(m.name, 31);
  const count = s.int(m.tags.length, 0, 8);
  for (let i = 0; i < count && s.ok; i++) m.tags[i] = s.int(m.tags[i] ?? 0, 0, 1000);
  if (s.isReading) m.tags.length = s.ok ? count : 0;
  m.token = s.bits64(m.token, 48);
  m.note = m.alive ? s.string(m.note, 200) : '';
  m.ack = s.sequenceRelative(m.seq, m.ack);
}

const blankMessage = (): Message => ({
  seq: 0,
  id: 0,
  health: 0,
  alive: false,
  x: 0,
  heading: 0,
  name: '',
  tags: [],
  token: 0n,
  note: '',
  ack: 1,
});

function messageDiff(a: Message, b: Message): string | null {
  for (const key of Object.keys(a) as (keyof Message)[]) {
    const x = a[key];
    const y = b[key];
    const same =
      Array.isArray(x) && Array.isArray(y)
        ? x.length === y.length && x.every((v, i) => v === y[i])
        : Object.is(x, y);
    if (!same) return `${key}: ${show(x)} vs ${show(y)}`;
  }
  return null;
}

export const ENVELOPE_PROTOCOL_ID = 0x6768_6f73_7477_6972n;

function envelopeTarget(seed: number): Target<null> {
  const rng = prng(seed);
  const envelope = new PacketEnvelope({ protocolId: ENVELOPE_PROTOCOL_ID, maxPacketBytes: 600 });
  const prefix = new Uint8Array(8);
  new DataView(prefix.buffer).setBigUint64(0, ENVELOPE_PROTOCOL_ID, true);
  const prefixCrc = crc32(prefix);
  const texts = fc.sample(textArb(200, 60), { seed, numRuns: 96 });
  const corpus: CorpusEntry<null>[] = [];
  for (let k = 0; k < 48; k++) {
    const seq = randomInt(rng, 65536);
    const m: Message = {
      seq,
      id: randomInt(rng, 4096),
      health: randomInt(rng, 201) - 100,
      alive: rng() < 0.6,
      x: f32((rng() - 0.5) * 2 ** randomInt(rng, 40)),
      heading: rng() * 360 - 180,
      name: fitUtf8(texts[2 * k], 31),
      tags: Array.from({ length: randomInt(rng, 9) }, () => randomInt(rng, 1001)),
      token: BigInt(randomInt(rng, 2 ** 24)) * BigInt(randomInt(rng, 2 ** 24)),
      note: texts[2 * k + 1],
      ack: (seq + 1 + randomInt(rng, k % 2 === 0 ? 30 : 65535)) % 65536,
    };
    if (m.ack === m.seq) m.ack = (m.seq + 1) % 65536;
    if (!m.alive) m.note = '';
    corpus.push({ bytes: envelope.write((s) => serializeMessage(s, m)).slice(), context: null });
  }
  const read = blankMessage();
  const back = blankMessage();
  const target: Target<null> = {
    name: 'envelope',
    description: 'PacketEnvelope (CRC32, check word) around a multi-primitive payload; many CRCs re-stamped',
    readers: ['envelope'],
    corpus,
    prepare(input, next) {
      // The CRC stops nearly every mutation; re-stamping most of them sends them on to the parser.
      if (input.length >= 8 && next() < 0.7) {
        const crc = crc32(input, 4, input.length, prefixCrc);
        input[0] = crc & 0xff;
        input[1] = (crc >>> 8) & 0xff;
        input[2] = (crc >>> 16) & 0xff;
        input[3] = crc >>> 24;
      }
    },
    run(input, _context, _iteration, r) {
      const result = r.read(0, () => envelope.read(input, (s) => serializeMessage(s, read)));
      r.outcome(0, result.ok, result.ok ? null : result.reason);
      if (!result.ok) return;
      r.check('an accepted payload re-writes and reads back the same', () => {
        const copy: Message = { ...read, tags: [...read.tags] };
        const packet = envelope.write((s) => serializeMessage(s, copy));
        const again = r.read(0, () => envelope.read(packet, (s) => serializeMessage(s, back)));
        if (!again.ok) return `re-written packet rejected: ${again.reason}`;
        return messageDiff(read, back);
      });
    },
  };
  assertCorpusAccepted(target);
  return target;
}

/** (n, maxCount) pairs the subset input selects from with its first field. */
const SUBSET_CONFIGS: readonly { n: number; maxCount: number }[] = [
  { n: 1, maxCount: 1 },
  { n: 5, maxCount: 3 },
  { n: 32, maxCount: 32 },
  { n: 33, maxCount: 34 },
  { n: 100, maxCount: 10 },
  { n: 1000, maxCount: 1000 },
  { n: 65535, maxCount: 200 },
  { n: 300, maxCount: 0 },
];

type Encoding = (s: Stream, indices: number[], n: number, maxCount: number) => number[];
const SUBSET_ENCODINGS: Record<number, Encoding> = {
  [SUBSET_TAG_BITMASK]: serializeSubsetBitmask,
  [SUBSET_TAG_INDICES]: serializeSubsetIndices,
  [SUBSET_TAG_SENTINEL]: serializeSubsetSentinel,
  [SUBSET_TAG_RELATIVE]: serializeSubsetRelative,
};

/** config (3 bits), then serializeSubset; `tag` forces one encoding instead of the cheapest. */
function writeSubset(ws: WriteStream, config: number, indices: number[], tag?: number): Uint8Array {
  const { n, maxCount } = SUBSET_CONFIGS[config];
  ws.reset();
  ws.int(config, 0, SUBSET_CONFIGS.length - 1);
  if (tag === undefined) serializeSubset(ws, indices, n, maxCount);
  else {
    ws.bits(tag, 2);
    SUBSET_ENCODINGS[tag](ws, indices, n, maxCount);
  }
  return ws.finish();
}

function subsetTarget(seed: number): Target<null> {
  const rng = prng(seed);
  const ws = new WriteStream(64 * 1024);
  const corpus: CorpusEntry<null>[] = [];
  for (let config = 0; config < SUBSET_CONFIGS.length; config++) {
    const { n, maxCount } = SUBSET_CONFIGS[config];
    const limit = Math.min(n, maxCount);
    const sizes = [
      0,
      Math.min(1, limit),
      limit,
      randomInt(rng, limit + 1),
      randomInt(rng, Math.min(limit, 12) + 1),
    ];
    for (const size of sizes) {
      // A random subset of `size` of [0, n): sparse or clustered.
      const chosen = new Set<number>();
      const clustered = rng() < 0.5;
      const start = randomInt(rng, n);
      while (chosen.size < size)
        chosen.add(clustered ? (start + randomInt(rng, size * 2 + 1)) % n : randomInt(rng, n));
      const indices = [...chosen].sort((a, b) => a - b);
      for (const tag of [
        undefined,
        SUBSET_TAG_BITMASK,
        SUBSET_TAG_INDICES,
        SUBSET_TAG_SENTINEL,
        SUBSET_TAG_RELATIVE,
      ]) {
        const bytes = writeSubset(ws, config, indices, tag).slice();
        corpus.push({ bytes, context: null, weight: 1 / (1 + bytes.length / 1024) });
      }
    }
  }
  const rs = new ReadStream();
  const measure = new MeasureStream();
  const target: Target<null> = {
    name: 'subset',
    description: 'serializeSubset over 8 (n, maxCount) shapes, all four encodings in the corpus',
    readers: ['subset'],
    corpus,
    run(input, _context, _iteration, r) {
      let config = 0;
      let payloadBits = 0;
      const indices = r.read(0, () => {
        rs.reset(input);
        config = rs.int(0, 0, SUBSET_CONFIGS.length - 1);
        const { n, maxCount } = SUBSET_CONFIGS[config];
        const start = rs.bitsProcessed;
        const out = serializeSubset(rs, [], n, maxCount);
        payloadBits = rs.bitsProcessed - start;
        rs.end();
        return out;
      });
      r.outcome(0, rs.ok, rs.error);
      if (!rs.ok) return;
      const { n, maxCount } = SUBSET_CONFIGS[config];
      r.check('an accepted subset is sorted, distinct, in range and within maxCount', () => {
        if (indices.length > Math.min(n, maxCount))
          return `${indices.length} indices for n ${n}, maxCount ${maxCount}`;
        for (let i = 0; i < indices.length; i++) {
          const x = indices[i];
          if (!Number.isInteger(x) || x < 0 || x >= n || (i > 0 && x <= indices[i - 1]))
            return `bad list ${show(indices)} for n ${n}`;
        }
        return null;
      });
      r.check('an accepted subset is the writer’s encoding under its tag', () => {
        rs.reset(input);
        rs.int(0, 0, SUBSET_CONFIGS.length - 1);
        const tag = rs.bits(0, 2);
        const again = writeSubset(ws, config, indices, tag);
        return sameBytes(again, input) ? null : `tag ${tag}: re-encoded ${hex(again)}`;
      });
      r.check('the cheapest encoding is no bigger and reads back the same list', () => {
        measure.reset();
        serializeSubset(measure, indices, n, maxCount);
        if (measure.bitsProcessed > payloadBits)
          return `cheapest encoding takes ${measure.bitsProcessed} bits, the input used ${payloadBits}`;
        const cheapest = writeSubset(ws, config, indices);
        const back = r.read(0, () => {
          rs.reset(cheapest);
          rs.int(0, 0, SUBSET_CONFIGS.length - 1);
          const out = serializeSubset(rs, [], n, maxCount);
          rs.end();
          return out;
        });
        if (!rs.ok) return `cheapest encoding rejected: ${rs.error}`;
        return back.length === indices.length && back.every((x, i) => x === indices[i])
          ? null
          : `read back ${show(back)}`;
      });
    },
  };
  assertCorpusAccepted(target);
  return target;
}

/** Ops whose value after an earlier failure must be the documented neutral one. */
function neutralMismatch(op: Op, value: OpValue): string | null {
  switch (op.op) {
    case 'bits':
    case 'uint8':
    case 'uint16':
    case 'uint32':
      return value === 0 ? null : `${op.op} returned ${show(value)} after a failure (expected 0)`;
    case 'bool':
      return value === false ? null : `bool returned ${show(value)} after a failure`;
    case 'int':
      return Object.is(value, op.min)
        ? null
        : `int returned ${show(value)} after a failure (expected ${op.min})`;
    case 'int64':
      return value === op.min ? null : `int64 returned ${show(value)} after a failure (expected ${op.min})`;
    case 'bits64':
    case 'uint64':
      return value === 0n ? null : `${op.op} returned ${show(value)} after a failure`;
    case 'string':
      return value === '' ? null : `string returned ${show(value)} after a failure`;
    case 'compressedFloat':
      return typeof value === 'number' && value >= op.spec.min && value <= op.spec.max
        ? null
        : `compressedFloat returned ${show(value)} after a failure, outside its range`;
    default:
      return null;
  }
}

interface Program {
  readonly ops: Op[];
  /** Built only of CANONICAL_OPS: an accepted input must be exactly what the writer writes. */
  readonly canonical: boolean;
}

function opsTarget(seed: number): Target<Program> {
  const entry = (ops: Op[], canonical: boolean): CorpusEntry<Program> => ({
    bytes: writeProgram(ops).bytes,
    context: { ops, canonical },
  });
  const corpus: CorpusEntry<Program>[] = [
    ...fc.sample(programArb, { seed, numRuns: 192 }).map((ops) => entry(ops, false)),
    ...fc.sample(canonicalProgramArb, { seed: seed ^ 1, numRuns: 64 }).map((ops) => entry(ops, true)),
  ];
  const rs = new ReadStream();
  const values: OpValue[] = [];
  const failedBefore: boolean[] = [];
  const target: Target<Program> = {
    name: 'ops',
    description: 'raw ReadStream: random programs of every Stream primitive',
    readers: ['read-stream'],
    corpus,
    run(input, { ops, canonical }, _iteration, r) {
      values.length = ops.length;
      failedBefore.length = ops.length;
      r.read(0, () => {
        rs.reset(input);
        for (let i = 0; i < ops.length; i++) {
          failedBefore[i] = !rs.ok;
          values[i] = runOp(rs, ops[i]);
        }
        rs.end();
      });
      r.outcome(0, rs.ok, rs.error);
      if (!rs.ok) {
        r.check('reads after a failure return neutral values', () => {
          for (let i = 0; i < ops.length; i++) {
            if (!failedBefore[i]) continue;
            const d = neutralMismatch(ops[i], values[i]);
            if (d !== null) return `op ${i} ${describeOp(ops[i])}: ${d}`;
          }
          return null;
        });
        return;
      }
      r.check('accepted values re-write and read back the same', () => {
        const { bytes } = writeProgram(ops, values);
        if (canonical && !sameBytes(bytes, input))
          return `not the writer's encoding: re-written as ${hex(bytes)}`;
        rs.reset(bytes);
        for (let i = 0; i < ops.length; i++) {
          const v = r.read(0, () => runOp(rs, ops[i]));
          const d = rs.ok ? opValueMismatch(ops[i], values[i], v) : `re-written stream rejected: ${rs.error}`;
          if (d !== null) return `op ${i} ${describeOp(ops[i])}: ${d}`;
        }
        return rs.end() ? null : `re-written stream rejected at its end: ${rs.error}`;
      });
    },
  };
  assertCorpusAccepted(target);
  return target;
}

// ---------------------------------------------------------------------------------------------
// Inputs: random buffers and mutations of valid encodings
// ---------------------------------------------------------------------------------------------

const INTERESTING_BYTES = [0x00, 0xff, 0x7f, 0x80, 0x01, 0xfe, 0x78, 0x12];
const INTERESTING_WORDS = [0, 0xffffffff, 0x80000000, 0x7fffffff, 1, 0x12345678, 0xffff, 0x10000];

export class InputMaker {
  private readonly buffer: Uint8Array;

  constructor(readonly capacity: number) {
    this.buffer = new Uint8Array(capacity);
  }

  private fill(rng: () => number, start: number, end: number): void {
    const b = this.buffer;
    for (let i = start; i < end; i += 4) {
      let word = (rng() * 4294967296) >>> 0;
      for (let k = 0; k < 4 && i + k < end; k++) {
        b[i + k] = word & 0xff;
        word >>>= 8;
      }
    }
  }

  /** `length` random bytes (a view, valid until the next call). */
  random(rng: () => number, length: number): Uint8Array {
    const n = Math.min(length, this.capacity);
    this.fill(rng, 0, n);
    return this.buffer.subarray(0, n);
  }

  /**
   * `base` with one to four mutations (a view, valid until the next call): bit flips, byte and word
   * overwrites, truncation, extension, splicing with `other`, byte insertion or deletion, copying a
   * chunk within.
   */
  mutate(rng: () => number, base: Uint8Array, other: Uint8Array): Uint8Array {
    const b = this.buffer;
    const cap = this.capacity;
    let len = Math.min(base.length, cap);
    b.set(base.subarray(0, len));
    const rounds = rng() < 0.6 ? 1 : 2 + randomInt(rng, 3);
    for (let round = 0; round < rounds; round++) {
      switch (randomInt(rng, 10)) {
        case 0:
        case 1:
        case 2: {
          // Bit flips: the commonest corruption, and the one that keeps every length intact.
          if (len === 0) break;
          const flips = rng() < 0.7 ? 1 : 2 + randomInt(rng, 4);
          for (let k = 0; k < flips; k++) {
            const bit = randomInt(rng, len * 8);
            b[bit >>> 3] ^= 1 << (bit & 7);
          }
          break;
        }
        case 3: {
          if (len === 0) break;
          const count = 1 + randomInt(rng, 3);
          for (let k = 0; k < count; k++) {
            b[randomInt(rng, len)] =
              rng() < 0.5 ? INTERESTING_BYTES[randomInt(rng, INTERESTING_BYTES.length)] : randomInt(rng, 256);
          }
          break;
        }
        case 4: {
          if (len < 4) break;
          const at = randomInt(rng, len - 3);
          const word = INTERESTING_WORDS[randomInt(rng, INTERESTING_WORDS.length)];
          b[at] = word & 0xff;
          b[at + 1] = (word >>> 8) & 0xff;
          b[at + 2] = (word >>> 16) & 0xff;
          b[at + 3] = word >>> 24;
          break;
        }
        case 5:
          // Truncation: anywhere, or just a few bytes off the end.
          if (len === 0) break;
          len = rng() < 0.5 ? randomInt(rng, len) : Math.max(0, len - 1 - randomInt(rng, Math.min(len, 8)));
          break;
        case 6: {
          const add = 1 + randomInt(rng, 16);
          if (len + add > cap) break;
          if (rng() < 0.5) b.fill(0, len, len + add);
          else this.fill(rng, len, len + add);
          len += add;
          break;
        }
        case 7: {
          // Splice: a prefix of this packet, the tail of another (often from the same offset).
          const cut = randomInt(rng, len + 1);
          const from = rng() < 0.5 ? Math.min(cut, other.length) : randomInt(rng, other.length + 1);
          const tail = Math.min(other.length - from, cap - cut);
          b.set(other.subarray(from, from + tail), cut);
          len = cut + tail;
          break;
        }
        case 8: {
          if (rng() < 0.5 && len > 0) {
            const at = randomInt(rng, len);
            b.copyWithin(at, at + 1, len);
            len--;
          } else if (len < cap) {
            const at = randomInt(rng, len + 1);
            b.copyWithin(at + 1, at, len);
            b[at] = randomInt(rng, 256);
            len++;
          }
          break;
        }
        case 9: {
          if (len < 2) break;
          const from = randomInt(rng, len);
          const size = 1 + randomInt(rng, Math.min(16, len - from));
          b.copyWithin(randomInt(rng, len - size + 1), from, from + size);
          break;
        }
      }
    }
    return b.subarray(0, len);
  }
}

// ---------------------------------------------------------------------------------------------
// The loop
// ---------------------------------------------------------------------------------------------

export interface ReaderStats {
  readonly name: string;
  accepted: number;
  acceptedRandom: number;
  acceptedMutated: number;
  rejected: number;
  readonly reasons: Map<string, number>;
}

export interface Crash {
  readonly target: string;
  readonly reader: string;
  readonly seed: number;
  readonly iteration: number;
  readonly mutated: boolean;
  readonly inputHex: string;
  readonly error: string;
}

export interface SemanticFailure {
  readonly check: string;
  readonly detail: string;
  readonly iteration: number;
  readonly inputHex: string;
}

export interface TargetReport {
  readonly target: string;
  readonly description: string;
  readonly seed: number;
  /** Inputs run (fewer than asked only after a crash). */
  iterations: number;
  randomInputs: number;
  mutatedInputs: number;
  readonly readers: ReaderStats[];
  semanticChecks: number;
  semanticFailures: number;
  /** Failures by check name, with the first few examples of each. */
  readonly failures: Map<string, SemanticFailure[]>;
  crash: Crash | null;
  elapsedMs: number;
  corpusSize: number;
  /** heapUsed after the first 10% of inputs and at the end (after a GC when one is available). */
  heapAtTenPercent: number;
  heapAtEnd: number;
  gcUsed: boolean;
  peakRss: number;
  peakHeapUsed: number;
}

export interface Progress {
  readonly target: string;
  readonly done: number;
  readonly total: number;
  readonly perSecond: number;
}

export interface RunOptions {
  readonly iterations: number;
  readonly seed: number;
  /** Share of purely random inputs (the rest are mutations); default 0.2. */
  readonly randomShare?: number;
  /** Called about every `progressMs` (default 500). */
  readonly onProgress?: (progress: Progress) => void;
  readonly progressMs?: number;
  /** A full GC (`globalThis.gc` under --expose-gc), for the heap measurements. */
  readonly gc?: () => void;
}

/** What `newTargetReport` needs to know; everything else in a report starts at zero. */
export interface TargetReportFields {
  readonly target: string;
  readonly description: string;
  readonly seed: number;
  readonly readers: readonly string[];
  readonly corpusSize: number;
  readonly gc?: () => void;
}

/** A report with every count at zero, for one target's run. */
export function newTargetReport(fields: TargetReportFields): TargetReport {
  return {
    target: fields.target,
    description: fields.description,
    seed: fields.seed,
    iterations: 0,
    randomInputs: 0,
    mutatedInputs: 0,
    readers: fields.readers.map((name) => ({
      name,
      accepted: 0,
      acceptedRandom: 0,
      acceptedMutated: 0,
      rejected: 0,
      reasons: new Map(),
    })),
    semanticChecks: 0,
    semanticFailures: 0,
    failures: new Map(),
    crash: null,
    elapsedMs: 0,
    corpusSize: fields.corpusSize,
    heapAtTenPercent: 0,
    heapAtEnd: 0,
    gcUsed: fields.gc !== undefined,
    peakRss: 0,
    peakHeapUsed: 0,
  };
}

/**
 * The bookkeeping of every fuzz loop: memory peaks, the heap once a tenth of the inputs are in
 * (settled by a GC when one can be forced), a progress call about every `progressMs`, and the time
 * and final heap at the end.
 */
export function runMeter(
  report: TargetReport,
  total: number,
  options: Pick<RunOptions, 'onProgress' | 'progressMs' | 'gc'>,
) {
  const probe = memoryProbe(report, options.gc);
  const progressMs = options.progressMs ?? 500;
  const tenPercent = Math.max(1, Math.floor(total / 10));
  const start = performance.now();
  let lastProgress = start;
  probe.sample();
  return {
    /** `done` of `total` inputs are in. Samples memory: call it every few inputs, not every one. */
    update(done: number): void {
      if (report.heapAtTenPercent === 0 && done >= tenPercent) report.heapAtTenPercent = probe.settled();
      probe.sample();
      if (options.onProgress === undefined) return;
      const now = performance.now();
      if (now - lastProgress < progressMs) return;
      lastProgress = now;
      options.onProgress({
        target: report.target,
        done: Math.min(done, total),
        total,
        perSecond: (done * 1000) / (now - start),
      });
    },
    finish(): void {
      report.elapsedMs = performance.now() - start;
      report.heapAtEnd = probe.settled();
      // A run that ended before its first tenth was measured: the end stands for it.
      if (report.heapAtTenPercent === 0) report.heapAtTenPercent = report.heapAtEnd;
    },
  };
}

const MAX_REASONS = 200;
const MAX_FAILURE_KINDS = 50;
const MAX_EXAMPLES = 3;
const MAX_EXAMPLE_HEX_BYTES = 256;

/**
 * Counts a failed semantic check and keeps its first few examples (at most MAX_FAILURE_KINDS
 * checks, MAX_EXAMPLES each, the input shown up to MAX_EXAMPLE_HEX_BYTES): one bookkeeping for
 * every fuzz target.
 */
export function recordFailure(
  report: TargetReport,
  check: string,
  detail: string,
  iteration: number,
  input: Uint8Array,
): void {
  report.semanticFailures++;
  let examples = report.failures.get(check);
  if (examples === undefined) {
    if (report.failures.size >= MAX_FAILURE_KINDS) return;
    examples = [];
    report.failures.set(check, examples);
  }
  if (examples.length < MAX_EXAMPLES) {
    const shown = input.subarray(0, MAX_EXAMPLE_HEX_BYTES);
    examples.push({
      check,
      detail,
      iteration,
      inputHex: hex(shown) + (input.length > shown.length ? `… (${input.length} bytes)` : ''),
    });
  }
}

/** Rejection reasons without positions or item indices, so they group. */
export function normalizeReason(reason: string): string {
  return reason
    .replace(/ at bit \d+/g, '')
    .replace(/\[\d+\]/g, '[]')
    .slice(0, 120);
}

function pickerFor(corpus: readonly CorpusEntry<unknown>[]): (rng: () => number) => CorpusEntry<unknown> {
  const cumulative: number[] = [];
  let total = 0;
  for (const entry of corpus) {
    total += entry.weight ?? 1;
    cumulative.push(total);
  }
  return (rng) => {
    const x = rng() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cumulative[mid] > x) hi = mid;
      else lo = mid + 1;
    }
    return corpus[lo];
  };
}

/** Feeds `options.iterations` inputs to a target; stops at the first crash. Never throws for a crash. */
export function runTarget(target: Target<unknown>, options: RunOptions): TargetReport {
  const { iterations, seed } = options;
  const randomShare = options.randomShare ?? 0.2;
  const rng = prng(deriveSeed(seed, `${target.name}/inputs`));
  let largest = 0;
  for (const entry of target.corpus) largest = Math.max(largest, entry.bytes.length);
  const maker = new InputMaker(2 * largest + 64);
  const pick = pickerFor(target.corpus);

  const report = newTargetReport({
    target: target.name,
    description: target.description,
    seed,
    readers: target.readers,
    corpusSize: target.corpus.length,
    gc: options.gc,
  });

  let iteration = 0;
  let mutated = false;
  let input: Uint8Array = new Uint8Array(0);

  const recorder: Recorder = {
    read(reader, fn) {
      try {
        return fn();
      } catch (error) {
        throw new ReaderCrash(target.readers[reader], error);
      }
    },
    outcome(reader, accepted, reason) {
      const stats = report.readers[reader];
      if (accepted) {
        stats.accepted++;
        if (mutated) stats.acceptedMutated++;
        else stats.acceptedRandom++;
        return;
      }
      const text = reason ?? 'rejected (no reason given)';
      if (SWALLOWED.test(text)) throw new ReaderCrash(target.readers[reader], text);
      stats.rejected++;
      let key = normalizeReason(text);
      if (!stats.reasons.has(key) && stats.reasons.size >= MAX_REASONS) key = '(other reasons)';
      stats.reasons.set(key, (stats.reasons.get(key) ?? 0) + 1);
    },
    check(name, fn) {
      report.semanticChecks++;
      let detail: string | null | undefined;
      try {
        detail = fn();
      } catch (error) {
        if (error instanceof ReaderCrash) throw error;
        detail = `threw ${error instanceof Error ? `${error.name}: ${error.message}` : show(error)}`;
      }
      if (!detail) return;
      recordFailure(report, name, detail, iteration, input);
    },
  };

  const meter = runMeter(report, iterations, options);
  for (iteration = 0; iteration < iterations; iteration++) {
    const base = pick(rng);
    mutated = rng() >= randomShare;
    if (mutated) {
      input = maker.mutate(rng, base.bytes, pick(rng).bytes);
      report.mutatedInputs++;
    } else {
      input = maker.random(rng, randomInt(rng, 2 * base.bytes.length + 1));
      report.randomInputs++;
    }
    target.prepare?.(input, rng);
    try {
      target.run(input, base.context, iteration, recorder);
    } catch (error) {
      const crash = error instanceof ReaderCrash ? error : new ReaderCrash('(target harness)', error);
      report.crash = {
        target: target.name,
        reader: crash.reader,
        seed,
        iteration,
        mutated,
        inputHex: hex(input),
        error: crash.message,
      };
      iteration++;
      break;
    }
    if ((iteration & 2047) === 2047) meter.update(iteration + 1);
  }
  report.iterations = iteration;
  meter.finish();
  return report;
}

/** A crash as text: everything needed to replay it. */
/** The crash report for an exception that escaped a reader (the targets that call readers themselves). */
export function escapedCrash(
  where: { target: string; reader: string; seed: number; iteration: number; mutated: boolean },
  input: Uint8Array,
  error: unknown,
): Crash {
  return {
    ...where,
    inputHex: hex(input),
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  };
}

export function formatCrash(crash: Crash): string {
  return [
    `EXCEPTION escaped reader ${crash.reader} (target ${crash.target})`,
    `  seed ${crash.seed}, iteration ${crash.iteration} (${crash.mutated ? 'mutated' : 'random'} input)`,
    `  replay: node dist/scripts/fuzz.js --seed ${crash.seed} --target ${crash.target} --iterations ${crash.iteration + 1}`,
    `  input (${crash.inputHex.length / 2} bytes): ${crash.inputHex}`,
    `  ${crash.error.split('\n').join('\n  ')}`,
  ].join('\n');
}

export function formatFailures(report: TargetReport): string {
  const lines: string[] = [];
  for (const [name, examples] of report.failures) {
    lines.push(`  check failed: ${name}`);
    for (const e of examples) {
      lines.push(`    iteration ${e.iteration}: ${e.detail}`);
      lines.push(`      input: ${e.inputHex}`);
    }
  }
  return lines.join('\n');
}
