/**
 * sin, cos, tan, atan, atan2, asin, acos and hypot that give the same bits on every JavaScript
 * engine (see dmath-exp.ts for why Math's are not enough): Cody–Waite reduction by π/2 in three
 * parts (exact integer reduction past 10^6: dmath-reduce.ts), Taylor polynomials on [-π/4, π/4],
 * atan by reduction to a few known angles.
 */
import { reduced, reduceLarge } from './dmath-reduce.js';

// π/2 in three parts of 33 significant bits: k·PIO2_1 and k·PIO2_2 are exact for |k| < 2^20.
const PIO2_1 = 1.5707963267341256;
const PIO2_2 = 6.077100506303966e-11;
const PIO2_3 = 2.0222662487959506e-21;
const TWO_OVER_PI = 0.6366197723675814;
const PIO4 = 0.7853981633974483;
const PI_HI = Math.PI;
const PI_LO = 1.2246467991473532e-16;
const PIO2_HI = 1.5707963267948966;
const PIO2_LO = 6.123233995736766e-17;
const PIO4_HI = 0.7853981633974483;
const PIO4_LO = 3.061616997868383e-17;
const ATAN_HALF_HI = 0.4636476090008061;
const ATAN_HALF_LO = 2.2698777452961687e-17;
const ATAN_1_5_HI = 0.982793723247329;
const ATAN_1_5_LO = 1.3903311031230998e-17;

/** The reduced argument of the last reduce(): rHi + rLo in [-π/4, π/4]. */
let rHi = 0;
let rLo = 0;

/** x = k·π/2 + r: sets rHi/rLo and returns k mod 4. */
function reduce(x: number): number {
  if (Math.abs(x) <= PIO4) {
    rHi = x;
    rLo = 0;
    return 0;
  }
  if (Math.abs(x) > 1e6) {
    const q = reduceLarge(x);
    rHi = reduced.hi;
    rLo = reduced.lo;
    return q;
  }
  const k = Math.round(x * TWO_OVER_PI);
  const r = x - k * PIO2_1;
  const w = k * PIO2_2;
  const hi = r - w;
  const lo = r - hi - w - k * PIO2_3;
  rHi = hi + lo;
  rLo = lo - (rHi - hi);
  return ((k % 4) + 4) % 4;
}

// Taylor coefficients of sin (to x^17) and cos (to x^18), each a correctly rounded division.
const S3 = -1 / 6;
const S5 = 1 / 120;
const S7 = -1 / 5040;
const S9 = 1 / 362880;
const S11 = -1 / 39916800;
const S13 = 1 / 6227020800;
const S15 = -1 / 1307674368000;
const S17 = 1 / 355687428096000;
const C4 = 1 / 24;
const C6 = -1 / 720;
const C8 = 1 / 40320;
const C10 = -1 / 3628800;
const C12 = 1 / 479001600;
const C14 = -1 / 87178291200;
const C16 = 1 / 20922789888000;
const C18 = -1 / 6402373705728000;

/** sin(x + y) for |x| ≤ π/4, y a tiny correction: sin x + y·cos x. */
function sinKernel(x: number, y: number): number {
  const z = x * x;
  const p = S3 + z * (S5 + z * (S7 + z * (S9 + z * (S11 + z * (S13 + z * (S15 + z * S17))))));
  return x + (x * z * p + (y - y * z * 0.5));
}

/** cos(x + y) for |x| ≤ π/4: 1 - x²/2 summed so its rounding is kept, then the rest. */
function cosKernel(x: number, y: number): number {
  const z = x * x;
  const p = z * z * (C4 + z * (C6 + z * (C8 + z * (C10 + z * (C12 + z * (C14 + z * (C16 + z * C18)))))));
  const hz = 0.5 * z;
  const w = 1 - hz;
  return w + (1 - w - hz + (p - x * y));
}

export function sin(x: number): number {
  if (x === 0 || Number.isNaN(x)) return x; // keeps -0; NaN stays NaN
  if (!Number.isFinite(x)) return Number.NaN;
  switch (reduce(x)) {
    case 0:
      return sinKernel(rHi, rLo);
    case 1:
      return cosKernel(rHi, rLo);
    case 2:
      return -sinKernel(rHi, rLo);
    default:
      return -cosKernel(rHi, rLo);
  }
}

export function cos(x: number): number {
  if (!Number.isFinite(x)) return Number.NaN;
  switch (reduce(x)) {
    case 0:
      return cosKernel(rHi, rLo);
    case 1:
      return -sinKernel(rHi, rLo);
    case 2:
      return -cosKernel(rHi, rLo);
    default:
      return sinKernel(rHi, rLo);
  }
}

export function tan(x: number): number {
  if (x === 0 || Number.isNaN(x)) return x;
  if (!Number.isFinite(x)) return Number.NaN;
  const n = reduce(x);
  const s = sinKernel(rHi, rLo);
  const c = cosKernel(rHi, rLo);
  return n % 2 === 0 ? s / c : -c / s;
}

// atan(t) = t + t·z·P(z), z = t², to t^45 (|t| ≤ 0.44 after reduction).
const ATAN_TERMS = 22;
const A = new Float64Array(ATAN_TERMS);
for (let i = 0; i < ATAN_TERMS; i++) A[i] = (i % 2 === 0 ? -1 : 1) / (2 * i + 3);

function atanSeries(t: number): number {
  const z = t * t;
  let p = A[ATAN_TERMS - 1];
  for (let i = ATAN_TERMS - 2; i >= 0; i--) p = A[i] + z * p;
  return t + t * z * p;
}

/** atan of a |x| (non-negative, finite or not): reduced to atan(c) + atan(t) for c in 0, ½, 1, 1.5, ∞. */
function atanPositive(a: number): number {
  if (a < 0.4375) return a < 7.450580596923828e-9 ? a : atanSeries(a);
  if (a < 0.6875) return ATAN_HALF_HI + (ATAN_HALF_LO + atanSeries((2 * a - 1) / (2 + a)));
  if (a < 1.1875) return PIO4_HI + (PIO4_LO + atanSeries((a - 1) / (a + 1)));
  if (a < 2.4375) return ATAN_1_5_HI + (ATAN_1_5_LO + atanSeries((a - 1.5) / (1 + 1.5 * a)));
  if (a > 7.378697629483821e19) return PIO2_HI + PIO2_LO;
  return PIO2_HI + (PIO2_LO + atanSeries(-1 / a));
}

export function atan(x: number): number {
  if (x === 0 || Number.isNaN(x)) return x;
  return x < 0 ? -atanPositive(-x) : atanPositive(x);
}

/** atan2 with Math.atan2's special cases (signed zeros, infinities) as ECMAScript lists them. */
export function atan2(y: number, x: number): number {
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.NaN;
  const yNegative = y < 0 || Object.is(y, -0);
  const xNegative = x < 0 || Object.is(x, -0);
  let r: number;
  if (y === 0) r = xNegative ? PI_HI : 0;
  else if (x === 0) r = PIO2_HI;
  else if (x === Number.POSITIVE_INFINITY) r = Number.isFinite(y) ? 0 : PIO4_HI;
  else if (x === Number.NEGATIVE_INFINITY) r = Number.isFinite(y) ? PI_HI : 3 * PIO4_HI;
  else if (!Number.isFinite(y)) r = PIO2_HI;
  else {
    const a = atanPositive(Math.abs(y / x));
    r = xNegative ? PI_HI - (a - PI_LO) : a;
  }
  return yNegative ? -r : r;
}

export function asin(x: number): number {
  if (!(Math.abs(x) <= 1)) return Number.NaN;
  if (x === 0) return x;
  return atan2(x, Math.sqrt((1 - x) * (1 + x)));
}

export function acos(x: number): number {
  if (!(Math.abs(x) <= 1)) return Number.NaN;
  return atan2(Math.sqrt((1 - x) * (1 + x)), x);
}

/** √(x² + y²) without overflow: Math.hypot is implementation-approximated, this is not. */
export function hypot(x: number, y: number): number {
  if (x === Number.POSITIVE_INFINITY || x === Number.NEGATIVE_INFINITY) return Number.POSITIVE_INFINITY;
  if (y === Number.POSITIVE_INFINITY || y === Number.NEGATIVE_INFINITY) return Number.POSITIVE_INFINITY;
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.NaN;
  const ax = Math.abs(x);
  const ay = Math.abs(y);
  const a = Math.max(ax, ay);
  const b = Math.min(ax, ay);
  if (b === 0) return a;
  const r = b / a;
  return a * Math.sqrt(1 + r * r);
}
