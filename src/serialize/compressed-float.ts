import { bitsRequired } from '../bits/bits-required.js';

const f32 = Math.fround;

/**
 * A quantized float range, precomputed once: the serialize STANDARD compressed float. Every step
 * is rounded to float32 exactly as the reference's float arithmetic does, so the bits match it;
 * double-precision arithmetic gives different quanta for values between two steps.
 */
export interface CompressedFloat {
  readonly min: number;
  readonly max: number;
  readonly resolution: number;
  readonly delta: number;
  /** The largest quantized integer (the value written for `max`). */
  readonly maxInteger: number;
  /** float32 of maxInteger, used by both directions. */
  readonly maxIntegerF32: number;
  readonly bits: number;
}

/** Declares a compressed float range: values in [min, max] sent to `resolution` precision. */
export function compressedFloat(min: number, max: number, resolution: number): CompressedFloat {
  const fmin = f32(min);
  const fmax = f32(max);
  const fres = f32(resolution);
  if (!(fmax > fmin) || !(fres > 0) || !Number.isFinite(fmax - fmin)) {
    throw new RangeError(
      `compressedFloat needs finite min < max and resolution > 0, got [${min}, ${max}] @ ${resolution}`,
    );
  }
  const delta = f32(fmax - fmin);
  const steps = f32(delta / fres);
  // The reference clamps to 2^32 - 256 steps, silently coarsening the resolution: refuse instead.
  if (steps > 4294967040) {
    throw new RangeError(
      `compressedFloat: [${min}, ${max}] @ ${resolution} needs more than 2^32 steps; use a coarser resolution`,
    );
  }
  const values = Math.max(steps, 1);
  const maxInteger = Math.ceil(values);
  return Object.freeze({
    min: fmin,
    max: fmax,
    resolution: fres,
    delta,
    maxInteger,
    maxIntegerF32: f32(maxInteger),
    bits: bitsRequired(0, maxInteger),
  });
}

/** The integer a value is sent as: clamped into the range, then rounded to the nearest step. */
export function quantize(value: number, spec: CompressedFloat): number {
  let normalized = f32(f32(f32(value) - spec.min) / spec.delta);
  // NaN fails both comparisons and lands on 0, like the reference's clamp.
  if (!(normalized >= 0)) normalized = 0;
  else if (normalized > 1) normalized = 1;
  // From 2^23 steps up, float32 rounding can carry the top value one step past maxInteger (the
  // reference writes that step, which its own range cannot hold); clamp so every write reads back.
  return Math.min(Math.floor(f32(f32(normalized * spec.maxIntegerF32) + 0.5)), spec.maxInteger);
}

/** The float a quantized integer decodes to. */
export function dequantize(integer: number, spec: CompressedFloat): number {
  return f32(f32(f32(f32(integer) / spec.maxIntegerF32) * spec.delta) + spec.min);
}
