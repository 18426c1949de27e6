import type { CompressedFloat } from './compressed-float.js';
import type { Stream } from './stream.js';

/**
 * A 3-vector as a plain mutable array, so a reader fills the caller's storage in place instead of
 * allocating per entity.
 */
export type Vector3 = number[];

export function checkLength(v: number[], length: number, what: string): void {
  // Caller misuse in every mode: a reader must not grow or shrink the caller's array.
  if (v.length !== length) {
    throw new RangeError(`${what}: expected an array of length ${length}, got length ${v.length}`);
  }
}

/** `length` raw float32s in order; reading updates `v` in place and returns it. */
export function serializeFloat32s(s: Stream, v: number[], length: number, what: string): number[] {
  checkLength(v, length, what);
  for (let i = 0; i < length; i++) v[i] = s.float32(v[i]);
  return v;
}

/** `length` compressed floats sharing one spec, in order; each is written as Stream.compressedFloat writes it. */
export function serializeCompressedFloats(
  s: Stream,
  v: number[],
  length: number,
  spec: CompressedFloat,
  what: string,
): number[] {
  checkLength(v, length, what);
  for (let i = 0; i < length; i++) v[i] = s.compressedFloat(v[i], spec);
  return v;
}

/** Three raw float32s, x then y then z (96 bits). Reading updates `v` in place and returns it. */
export function serializeVector3(s: Stream, v: Vector3): Vector3 {
  return serializeFloat32s(s, v, 3, 'serializeVector3');
}

/**
 * Three compressed floats sharing one range spec (3 * spec.bits bits). Writing checks each
 * component as {@link Stream.compressedFloat} does: outside the range it throws, or clamps when the
 * spec was declared with `{ clamp: true }`.
 */
export function serializeCompressedVector3(s: Stream, v: Vector3, spec: CompressedFloat): Vector3 {
  return serializeCompressedFloats(s, v, 3, spec, 'serializeCompressedVector3');
}
