/** Shared scratch views for moving IEEE-754 bit patterns to and from integers without allocating. */
const f32 = new Float32Array(1);
const u32OfF32 = new Uint32Array(f32.buffer);
const f64 = new Float64Array(1);
const u32OfF64 = new Uint32Array(f64.buffer);

export function float32ToBits(value: number): number {
  f32[0] = value;
  return u32OfF32[0];
}

export function bitsToFloat32(bits: number): number {
  u32OfF32[0] = bits;
  return f32[0];
}

/** Splits a double into its low and high 32-bit words; read the high word with {@link float64HighBits}. */
export function float64LowBits(value: number): number {
  f64[0] = value;
  return u32OfF64[0];
}

/** The high word of the double last given to {@link float64LowBits}. */
export function float64HighBits(): number {
  return u32OfF64[1];
}

export function bitsToFloat64(low: number, high: number): number {
  u32OfF64[0] = low;
  u32OfF64[1] = high;
  return f64[0];
}

/**
 * Why a number cannot be written as float32, or null. NaN and ±Infinity are IEEE-754 bit patterns
 * the reference writes as they are, so they pass; a finite number beyond the float32 range would
 * silently arrive as an infinity, so it is refused.
 */
export function float32Problem(value: number): string | null {
  return value - value === 0 && !Number.isFinite(Math.fround(value))
    ? `${value} is beyond the float32 range (|v| <= 3.4028234663852886e38)`
    : null;
}
