import type { CompressedFloat } from './compressed-float.js';
import type { Stream } from './stream.js';
import { checkLength, serializeCompressedFloats, serializeFloat32s } from './vector.js';

/** A quaternion as a plain mutable array in the order x, y, z, w; readers fill it in place. */
export type Quaternion = number[];

/** Four raw float32s, x, y, z, w (128 bits). */
export function serializeQuaternion(s: Stream, q: Quaternion): Quaternion {
  return serializeFloat32s(s, q, 4, 'serializeQuaternion');
}

/** Four compressed floats, x, y, z, w, sharing one range spec (4 * spec.bits bits). */
export function serializeCompressedQuaternion(s: Stream, q: Quaternion, spec: CompressedFloat): Quaternion {
  return serializeCompressedFloats(s, q, 4, spec, 'serializeCompressedQuaternion');
}

/**
 * In a unit quaternion every component other than the largest has magnitude at most 1/sqrt(2):
 * if one exceeded it, the largest would too and the squares would sum past 1.
 */
export const SMALLEST_THREE_BOUND = Math.SQRT1_2;

/** How far from length 1 a quaternion handed to the smallest-three writer may be. */
export const SMALLEST_THREE_UNIT_TOLERANCE = 1e-3;

export const SMALLEST_THREE_MIN_BITS = 2;
export const SMALLEST_THREE_MAX_BITS = 16;

/** Precomputed constants of the smallest-three encoding at one precision. */
export interface SmallestThree {
  /** Bits per quantized component. */
  readonly bits: number;
  /** Bits per quaternion: 2 for the largest component's index, then 3 * bits. */
  readonly totalBits: number;
  /** The largest quantized integer, (1 << bits) - 1: every bit pattern is a valid value. */
  readonly maxInteger: number;
  /** Distance between adjacent quantized values: 2 * bound / maxInteger. */
  readonly step: number;
  /** Worst rounding error of a transmitted component: half a step. */
  readonly maxError: number;
  /** maxInteger / (2 * bound): multiplies a component shifted into [0, 2 * bound]. */
  readonly scale: number;
}

const SPECS: SmallestThree[] = [];
for (let bits = SMALLEST_THREE_MIN_BITS; bits <= SMALLEST_THREE_MAX_BITS; bits++) {
  const maxInteger = (1 << bits) - 1;
  const step = (2 * SMALLEST_THREE_BOUND) / maxInteger;
  SPECS[bits] = Object.freeze({
    bits,
    totalBits: 2 + 3 * bits,
    maxInteger,
    step,
    maxError: step / 2,
    scale: maxInteger / (2 * SMALLEST_THREE_BOUND),
  });
}

/** The constants for `bitsPerComponent` bits (2..16); anything else is a RangeError. */
export function smallestThree(bitsPerComponent: number): SmallestThree {
  const spec = Number.isInteger(bitsPerComponent) ? SPECS[bitsPerComponent] : undefined;
  if (spec === undefined) {
    throw new RangeError(
      `smallest-three bitsPerComponent must be an integer in [${SMALLEST_THREE_MIN_BITS}, ${SMALLEST_THREE_MAX_BITS}], got ${bitsPerComponent}`,
    );
  }
  return spec;
}

/**
 * A rotation in 2 + 3 * bitsPerComponent bits (29 at the default 9): the index of the
 * largest-magnitude component (first one on a tie) in 2 bits, then the other three in index order,
 * each rounded to the nearest of 2^bits steps over [-1/sqrt(2), +1/sqrt(2)].
 *
 * Writing (and measuring) requires a finite quaternion whose length is within
 * {@link SMALLEST_THREE_UNIT_TOLERANCE} of 1, else RangeError: a far-off length means a caller bug,
 * not drift. Within tolerance it is normalised before quantizing, and negated when its largest
 * component is negative (q and -q are the same rotation), so the receiver can rebuild the largest
 * as the non-negative root. `q` itself is not modified by writing.
 *
 * Reading rebuilds the largest as sqrt(max(0, 1 - sum of squares of the other three)) and
 * renormalises, so any input bits decode to a unit quaternion; nothing read is rejected because
 * every bit pattern maps into range. After a failed read `q` is set to the identity (0, 0, 0, 1).
 */
export function serializeSmallestThree(s: Stream, q: Quaternion, bitsPerComponent = 9): Quaternion {
  checkLength(q, 4, 'serializeSmallestThree');
  const spec = smallestThree(bitsPerComponent);
  const bound = SMALLEST_THREE_BOUND;
  let largest = 0;
  let factor = 1;
  if (!s.isReading) {
    const length = Math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    // Written so NaN and infinities fail the test too.
    if (!(Math.abs(length - 1) <= SMALLEST_THREE_UNIT_TOLERANCE)) {
      throw new RangeError(
        `serializeSmallestThree: quaternion length ${length} is not within ${SMALLEST_THREE_UNIT_TOLERANCE} of 1`,
      );
    }
    for (let i = 1; i < 4; i++) if (Math.abs(q[i]) > Math.abs(q[largest])) largest = i;
    factor = (q[largest] < 0 ? -1 : 1) / length;
  }
  largest = s.bits(largest, 2);
  let sumSquares = 0;
  for (let i = 0; i < 4; i++) {
    if (i === largest) continue;
    let integer = 0;
    if (!s.isReading) {
      // Clamp: normalising in floating point can leave a component a hair past the bound.
      integer = Math.round((q[i] * factor + bound) * spec.scale);
      if (integer < 0) integer = 0;
      else if (integer > spec.maxInteger) integer = spec.maxInteger;
    }
    integer = s.bits(integer, spec.bits);
    if (s.isReading) {
      const c = integer * spec.step - bound;
      q[i] = c;
      sumSquares += c * c;
    }
  }
  if (s.isReading) {
    if (!s.ok) {
      q[0] = 0;
      q[1] = 0;
      q[2] = 0;
      q[3] = 1;
      return q;
    }
    const w = Math.sqrt(Math.max(0, 1 - sumSquares));
    q[largest] = w;
    // Length is >= 1 - rounding here (sumSquares + w^2 is 1, or sumSquares when that exceeds 1).
    const inverse = 1 / Math.sqrt(sumSquares + w * w);
    q[0] *= inverse;
    q[1] *= inverse;
    q[2] *= inverse;
    q[3] *= inverse;
  }
  return q;
}
