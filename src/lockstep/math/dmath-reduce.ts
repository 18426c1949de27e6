/**
 * Reduction by π/2 of a large argument (|x| above 10^6, where the three-part Cody–Waite split is
 * no longer exact): x · 2/π in exact integer arithmetic (BigInt, defined exactly by ECMAScript)
 * against 1216 bits of 2/π, Payne–Hanek's idea. Slow (microseconds), and only taken for
 * arguments a game rarely has; correct to about 1 ulp up to the largest double.
 */

/** floor(2/π · 2^1216): the first 1216 bits of 2/π. */
const TWO_OVER_PI = BigInt(
  '0x' +
    'a2f9836e4e441529fc2757d1f534ddc0db6295993c439041fe5163abdebbc561b7246e3a424d' +
    'd2e006492eea09d1921cfe1deb1cb129a73ee88235f52ebb4484e99c7026b45f7e413991d639' +
    '835339f49c845f8bbdf9283b1ff897ffde05980fef2f118b5a0a6d1f6d367ecf27cb09b74f46' +
    '3f669e5fea2d7527bac7ebe5f17b3d0739f78a5292ea6bfb5fb11f8d5d0856033046fc7b6bab',
);
const BITS = 1216n;
const PIO2_HI = 1.5707963267948966;
const PIO2_LO = 6.123233995736766e-17;
const TWO_53 = 9007199254740992;
/** Veltkamp's splitter, 2^27 + 1. */
const SPLIT = 134217729;
const view = new DataView(new ArrayBuffer(8));

/** Written by reduceLarge: the reduced argument as hi + lo, in [-π/4, π/4]. */
export const reduced = { hi: 0, lo: 0 };

/** x = k·π/2 + r for a finite |x| ≥ 1: sets `reduced` to r and returns k mod 4. */
export function reduceLarge(x: number): number {
  const negative = x < 0;
  view.setFloat64(0, negative ? -x : x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const mantissa = (BigInt((hi & 0xfffff) | 0x100000) << 32n) | BigInt(lo);
  const exponent = BigInt(((hi >>> 20) & 0x7ff) - 1075); // x = mantissa · 2^exponent
  // x · 2/π = mantissa · C · 2^(exponent - BITS): integer part above `shift`, the fraction below.
  const product = mantissa * TWO_OVER_PI;
  const shift = BITS - exponent;
  let k = (product >> shift) & 3n;
  let fraction = product & ((1n << shift) - 1n);
  if (fraction >> (shift - 1n) === 1n) {
    // Round to the nearest k: the fraction becomes negative, in [-½, ½).
    k = (k + 1n) & 3n;
    fraction -= 1n << shift;
  }
  const sign = fraction < 0n ? -1 : 1;
  if (fraction < 0n) fraction = -fraction;
  // The fraction's top 106 bits as two doubles (each conversion of a < 2^53 integer is exact).
  const top = fraction >> (shift - 106n);
  const fHi = Number(top >> 53n) / TWO_53;
  const fLo = Number(top & BigInt(TWO_53 - 1)) / TWO_53 / TWO_53;
  // r = f · π/2 in double-double: fHi · PIO2_HI exactly as a sum of two (Dekker's product).
  let rHi = fHi * PIO2_HI;
  let t = SPLIT * fHi;
  const aHi = t - (t - fHi);
  const aLo = fHi - aHi;
  t = SPLIT * PIO2_HI;
  const bHi = t - (t - PIO2_HI);
  const bLo = PIO2_HI - bHi;
  const error = aHi * bHi - rHi + aHi * bLo + aLo * bHi + aLo * bLo;
  let rLo = error + (fHi * PIO2_LO + fLo * PIO2_HI);
  const sum = rHi + rLo;
  rLo = rLo - (sum - rHi);
  rHi = sum;
  let q = Number(k);
  if (sign < 0) {
    rHi = -rHi;
    rLo = -rLo;
  }
  if (negative) {
    rHi = -rHi;
    rLo = -rLo;
    q = (4 - q) % 4;
  }
  reduced.hi = rHi;
  reduced.lo = rLo;
  return q;
}
