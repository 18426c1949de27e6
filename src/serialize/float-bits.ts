/** Shared scratch views for moving IEEE-754 bit patterns to and from integers without allocating. */
const f32 = new Float32Array(1);
const u32OfF32 = new Uint32Array(f32.buffer);
const f64 = new Float64Array(1);
const u32OfF64 = new Uint32Array(f64.buffer);

/**
 * The float32 bit pattern of a number. Finite numbers and infinities round as IEEE-754 does. A NaN
 * keeps the payload a float32 read put in it (see {@link bitsToFloat32}): the top 23 bits of the
 * double's payload, quiet unless marked signalling. Only the NaN path differs from what the
 * hardware conversion gives, which would quiet a signalling NaN (`7f800001` written as `7fc00001`).
 */
export function float32ToBits(value: number): number {
  if (!Number.isNaN(value)) {
    f32[0] = value;
    return u32OfF32[0];
  }
  return nanToFloat32Bits(value);
}

/** Low 29 payload bits of a double that mark it as a widened signalling float32 NaN. */
const SIGNALLING_MARK = 1;
const FLOAT32_QUIET = 0x400000;

function nanToFloat32Bits(value: number): number {
  f64[0] = value;
  const high = u32OfF64[1];
  const low = u32OfF64[0];
  const payload = ((high & 0xfffff) << 3) | (low >>> 29);
  const signalling = (low & 0x1fffffff) === SIGNALLING_MARK && (payload & ~FLOAT32_QUIET) !== 0;
  return (
    ((high & 0x80000000) | 0x7f800000 | (signalling ? payload & ~FLOAT32_QUIET : payload | FLOAT32_QUIET)) >>>
    0
  );
}

/**
 * The number a float32 bit pattern stands for. Non-NaN patterns convert exactly. A NaN widens as
 * IEEE-754 does (sign, payload moved to the top of the double's), quiet: JS engines quiet
 * signalling NaNs as they please (V8 does on storing one in an array of numbers). A signalling
 * NaN is marked instead, by low payload bits no widened float32 has, so that
 * {@link float32ToBits} gives back the same 32 bits: read from a C peer and written again, a
 * value keeps its bytes.
 */
export function bitsToFloat32(bits: number): number {
  u32OfF32[0] = bits;
  const value = f32[0];
  return Number.isNaN(value) ? float32NanToNumber(bits) : value;
}

function float32NanToNumber(bits: number): number {
  const signalling = (bits & FLOAT32_QUIET) === 0;
  u32OfF64[1] = ((bits & 0x80000000) | 0x7ff80000 | ((bits & 0x7fffff) >>> 3)) >>> 0;
  u32OfF64[0] = (((bits & 0x7) << 29) | (signalling ? SIGNALLING_MARK : 0)) >>> 0;
  return f64[0];
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
