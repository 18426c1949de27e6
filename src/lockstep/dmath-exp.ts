/**
 * exp, log and pow that give the same bits on every JavaScript engine: ECMAScript leaves
 * Math.exp/log/pow "implementation-approximated", while + - * / on doubles are exactly rounded
 * (IEEE 754, no fused operations, no extended precision), and so are Math.round/floor/abs. These
 * use only those, with Cody–Waite range reduction and Taylor polynomials (the reduced ranges are
 * small enough that a Taylor series is below double rounding); pow carries log in double-double.
 * Accuracy against Math.* is measured in test/p2p/dmath.test.ts (about 1 ulp).
 */

// ln 2 in two parts: the first has 32 significant bits, so k * LN2_HI is exact for |k| < 2^21.
const LN2_HI = 0.6931471803691238;
const LN2_LO = 1.9082149292705877e-10;
const LOG2E = Math.LOG2E;
const SQRT2 = Math.SQRT2;
/** Past these, exp overflows to Infinity or underflows to 0. */
const EXP_MAX = 709.782712893384;
const EXP_MIN = -745.1332191019412;
/** Veltkamp's splitter: 2^27 + 1 (a product split in halves, exactly). */
const SPLIT = 134217729;

const view = new DataView(new ArrayBuffer(8));

/** 2^k for an integer k in [-1022, 1023], built from its bits (exact). */
function pow2(k: number): number {
  view.setUint32(0, (k + 1023) << 20);
  view.setUint32(4, 0);
  return view.getFloat64(0);
}

/** x · 2^k, exactly where the result is normal (k an integer, any size up to ±2100). */
function scale(x: number, k: number): number {
  if (k > 1023) return x * pow2(1023) * pow2(k - 1023);
  // The small factor first: x · 2^(k+1022) is exact, so only the last product rounds (subnormal).
  if (k < -1022) return x * pow2(k + 1022) * pow2(-1022);
  return x * pow2(k);
}

// Taylor coefficients of e^r: 1/n!, each one correctly rounded division.
const E2 = 1 / 2;
const E3 = 1 / 6;
const E4 = 1 / 24;
const E5 = 1 / 120;
const E6 = 1 / 720;
const E7 = 1 / 5040;
const E8 = 1 / 40320;
const E9 = 1 / 362880;
const E10 = 1 / 3628800;
const E11 = 1 / 39916800;
const E12 = 1 / 479001600;
const E13 = 1 / 6227020800;

/** e^(r + c) for |r| ≤ 0.35 and a tiny correction c: 1 + r as an exact sum, the small terms added to its low part. */
function expReduced(r: number, c: number): number {
  const tail =
    r *
    r *
    (E2 +
      r *
        (E3 +
          r *
            (E4 +
              r *
                (E5 +
                  r * (E6 + r * (E7 + r * (E8 + r * (E9 + r * (E10 + r * (E11 + r * (E12 + r * E13)))))))))));
  const hi = 1 + r;
  const lo = 1 - hi + r; // exact: |r| < 1
  return hi + (lo + (c + c * r + tail));
}

/** e^(hi + lo), |lo| tiny beside hi: exp of a double-double (pow's last step). */
function expDD(hi: number, lo: number): number {
  if (hi > EXP_MAX) return Number.POSITIVE_INFINITY;
  if (hi < EXP_MIN) return 0;
  const k = Math.round(hi * LOG2E);
  const rHi = hi - k * LN2_HI; // exact: k * LN2_HI is, and the two are close
  const rLo = k * LN2_LO - lo;
  const r = rHi - rLo;
  const c = rHi - r - rLo; // what rounding r lost
  return scale(expReduced(r, c), k);
}

/** e^x, deterministic (about 1 ulp from the exact value). */
export function exp(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  return expDD(x, 0);
}

/** The bits of a positive finite double: exponent (unbiased) and the mantissa as a double in [1, 2). */
function decompose(x: number, out: Float64Array): void {
  let e = 0;
  if (x < 2.2250738585072014e-308) {
    x *= 18014398509481984; // 2^54: a subnormal made normal
    e = -54;
  }
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  e += ((hi >>> 20) & 0x7ff) - 1023;
  view.setUint32(0, (hi & 0x000fffff) | 0x3ff00000);
  out[0] = e;
  out[1] = view.getFloat64(0);
}

const parts = new Float64Array(2);
const dd = new Float64Array(2);

// 2·atanh(s) = 2s + s·R(s²), R's coefficients 2/3, 2/5, ... (series to s^21: |s| ≤ 0.172).
const L3 = 2 / 3;
const L5 = 2 / 5;
const L7 = 2 / 7;
const L9 = 2 / 9;
const L11 = 2 / 11;
const L13 = 2 / 13;
const L15 = 2 / 15;
const L17 = 2 / 17;
const L19 = 2 / 19;
const L21 = 2 / 21;

/**
 * ln x for a positive finite x into `dd` as a double-double (hi, lo), accurate to about 2^-70
 * relative: x = m · 2^e with m in [√½, √2), ln m = 2·atanh((m-1)/(m+1)).
 */
function logDD(x: number): void {
  decompose(x, parts);
  let e = parts[0];
  let m = parts[1];
  if (m > SQRT2) {
    m *= 0.5;
    e += 1;
  }
  const f = m - 1; // exact (Sterbenz)
  // s = f / (2 + f) in double-double: 2 + f as an exact sum, then one correction of the quotient.
  const d = 2 + f;
  const dLo = f - (d - 2);
  const s = f / d;
  const sLo = (f - twoProductHi(s, d) - productLo - s * dLo) / d;
  const z = s * s;
  const tail =
    s *
    z *
    (L3 +
      z * (L5 + z * (L7 + z * (L9 + z * (L11 + z * (L13 + z * (L15 + z * (L17 + z * (L19 + z * L21)))))))));
  // e·ln2 + 2s + (2·sLo + tail), summed so the rounding of the big terms is kept.
  const a = e * LN2_HI; // exact
  const b = 2 * s;
  const hi = a + b; // Knuth's two-sum: hi + lo = a + b exactly
  const bb = hi - a;
  const lo = a - (hi - bb) + (b - bb);
  const rest = lo + (e * LN2_LO + (2 * sLo + tail));
  const h = hi + rest;
  dd[0] = h;
  dd[1] = rest - (h - hi);
}

/** The low part of the last twoProductHi (a · b = hi + lo exactly, barring overflow). */
let productLo = 0;

/** a · b rounded; sets productLo to the exact remainder (Dekker, with Veltkamp splitting). */
function twoProductHi(a: number, b: number): number {
  const p = a * b;
  let t = SPLIT * a;
  const aHi = t - (t - a);
  const aLo = a - aHi;
  t = SPLIT * b;
  const bHi = t - (t - b);
  const bLo = b - bHi;
  productLo = aHi * bHi - p + aHi * bLo + aLo * bHi + aLo * bLo;
  return p;
}

/** ln x, deterministic (about 1 ulp). */
export function log(x: number): number {
  if (Number.isNaN(x) || x < 0) return Number.NaN;
  if (x === 0) return Number.NEGATIVE_INFINITY;
  if (x === Number.POSITIVE_INFINITY) return x;
  if (x === 1) return 0;
  logDD(x);
  return dd[0];
}

function isOddInteger(y: number): boolean {
  return Math.abs(y) < 9007199254740992 && Math.floor(y) === y && Math.abs(y % 2) === 1;
}

/**
 * x^y with Math.pow's special cases (as ECMAScript defines them: 1^±Infinity and 1^NaN are NaN),
 * deterministic (about 1 ulp: ln |x| in double-double, times y, then exp of the double-double).
 */
export function pow(x: number, y: number): number {
  if (Number.isNaN(y)) return Number.NaN;
  if (y === 0) return 1;
  if (Number.isNaN(x)) return Number.NaN;
  const ax = Math.abs(x);
  if (y === Number.POSITIVE_INFINITY) return ax === 1 ? Number.NaN : ax > 1 ? y : 0;
  if (y === Number.NEGATIVE_INFINITY) return ax === 1 ? Number.NaN : ax > 1 ? 0 : -y;
  const negative = x < 0 || Object.is(x, -0) ? isOddInteger(y) : false;
  if (x < 0 && Number.isFinite(x) && Math.floor(y) !== y) return Number.NaN;
  if (ax === 0 || ax === Number.POSITIVE_INFINITY) {
    const big = (ax === 0) === y < 0; // 0^negative and Infinity^positive are infinite
    const r = big ? Number.POSITIVE_INFINITY : 0;
    return negative ? -r : r;
  }
  if (ax === 1) return negative ? -1 : 1;
  logDD(ax);
  const hi = y * dd[0];
  let r: number;
  if (hi > EXP_MAX + 1) r = Number.POSITIVE_INFINITY;
  else if (hi < EXP_MIN - 1) r = 0;
  else {
    const p = twoProductHi(y, dd[0]);
    r = expDD(p, productLo + y * dd[1]);
  }
  return negative ? -r : r;
}
