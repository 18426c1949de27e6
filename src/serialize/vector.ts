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

/** Three raw float32s, x then y then z (96 bits). Reading updates `v` in place and returns it. */
export function serializeVector3(s: Stream, v: Vector3): Vector3 {
  checkLength(v, 3, 'serializeVector3');
  v[0] = s.float32(v[0]);
  v[1] = s.float32(v[1]);
  v[2] = s.float32(v[2]);
  return v;
}

/**
 * Three compressed floats sharing one range spec (3 * spec.bits bits). Writing clamps each
 * component into the spec's range, as {@link Stream.compressedFloat} does.
 */
export function serializeCompressedVector3(s: Stream, v: Vector3, spec: CompressedFloat): Vector3 {
  checkLength(v, 3, 'serializeCompressedVector3');
  v[0] = s.compressedFloat(v[0], spec);
  v[1] = s.compressedFloat(v[1], spec);
  v[2] = s.compressedFloat(v[2], spec);
  return v;
}
