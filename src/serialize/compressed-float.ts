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
  /**
   * The largest value a read returns: f(max), or a hair above it when float32 rounding carries
   * f(min + delta) past f(max) (dequantize of maxInteger). Writes accept values up to it, so
   * whatever was read can be written back.
   */
  readonly maxDecoded: number;
  /** Out-of-range finite values are clamped to the range instead of refused (see {@link CompressedFloatOptions}). */
  readonly clamp: boolean;
  /** 1 / delta: quantizing multiplies by it (same float32 as dividing: docs/serialization.md). */
  readonly scale: number;
  /** 1 / maxInteger when maxInteger < 2^24 (the products round like the quotients), else 0: divide. */
  readonly unscale: number;
}

export interface CompressedFloatOptions {
  /**
   * Clamp finite values outside [min, max] to the nearer bound instead of throwing (default
   * false: a value outside the declared range is a caller bug). NaN and ±Infinity throw either way.
   */
  readonly clamp?: boolean;
}

/** Declares a compressed float range: values in [min, max] sent to `resolution` precision. */
export function compressedFloat(
  min: number,
  max: number,
  resolution: number,
  options: CompressedFloatOptions = {},
): CompressedFloat {
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
    // dequantize(maxInteger): maxInteger / maxInteger is exactly 1.
    maxDecoded: Math.max(fmax, f32(delta + fmin)),
    clamp: options.clamp === true,
    scale: 1 / delta,
    unscale: maxInteger < 2 ** 24 ? 1 / maxInteger : 0,
  });
}

/**
 * Why a value cannot be sent through `spec`, or null when it can: NaN and ±Infinity never can (the
 * STANDARD calls them non-conforming), a finite value outside the range only when the spec clamps.
 * The range test is on the float32 of the value, which is what the arithmetic uses, and reaches up
 * to `maxDecoded`, so a value a read returned is always accepted.
 */
export function compressedFloatProblem(value: number, spec: CompressedFloat): string | null {
  const v = f32(value);
  if (v >= spec.min && v <= spec.maxDecoded) return null;
  if (value - value !== 0)
    return `${value} cannot be sent as a compressed float (NaN and infinities are refused)`;
  return spec.clamp
    ? null
    : `${value} is outside [${spec.min}, ${spec.max}] (declare { clamp: true } to clamp)`;
}

/**
 * The integer a value is sent as, rounded to the nearest step; throws a RangeError on a value
 * {@link compressedFloatProblem} refuses. The clamps below apply the spec's clamp option and
 * absorb float32 rounding at the bounds.
 */
export function quantize(value: number, spec: CompressedFloat): number {
  const v = f32(value);
  if (!(v >= spec.min && v <= spec.maxDecoded)) return quantizeOutside(value, spec);
  const n = f32(v - spec.min);
  // The reciprocal's product is the quotient's float32 when that is normal; below, divide.
  let normalized = f32(n * spec.scale);
  if (normalized < F32_MIN_NORMAL) normalized = f32(n / spec.delta);
  if (normalized > 1) normalized = 1;
  return Math.min(Math.floor(f32(f32(normalized * spec.maxIntegerF32) + 0.5)), spec.maxInteger);
}

/** The smallest normal float32, 2^-126. */
const F32_MIN_NORMAL = 2 ** -126;

/** {@link quantize} of a value outside the range: refused, or clamped when the spec says so. */
function quantizeOutside(value: number, spec: CompressedFloat): number {
  const problem = compressedFloatProblem(value, spec);
  if (problem !== null) throw new RangeError(`compressedFloat: ${problem}`);
  let normalized = f32(f32(f32(value) - spec.min) / spec.delta);
  if (!(normalized >= 0)) normalized = 0;
  else if (normalized > 1) normalized = 1;
  // From 2^23 steps up, float32 rounding can carry the top value one step past maxInteger (the
  // reference writes that step, which its own range cannot hold); clamp so every write reads back.
  return Math.min(Math.floor(f32(f32(normalized * spec.maxIntegerF32) + 0.5)), spec.maxInteger);
}

/** The float a quantized integer decodes to. */
export function dequantize(integer: number, spec: CompressedFloat): number {
  const ratio = spec.unscale !== 0 ? f32(integer * spec.unscale) : f32(f32(integer) / spec.maxIntegerF32);
  return f32(f32(ratio * spec.delta) + spec.min);
}
