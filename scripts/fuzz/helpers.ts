import type { CompressedFloat } from '../../src/serialize/compressed-float.js';
import { sameBytes } from '../bytes.js';

export const f32 = Math.fround;

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
