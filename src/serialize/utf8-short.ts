/**
 * Short UTF-8 text (names, keys, labels: up to 64 bytes) validated and decoded in one pass in
 * JavaScript. A native slice or TextDecoder call costs more than the whole decode at this size:
 * String.fromCharCode builds a flat string without leaving JavaScript (about half the time of
 * Node's latin1Slice on 3..16-byte ASCII names, a third of utf8Slice on 20-byte Cyrillic ones).
 */

/** The most bytes {@link utf8Short} takes. */
export const SHORT_UTF8 = 64;
/** Up to this many code units a string is made by a call with one argument per unit. */
const SPREAD_UNITS = 16;

/** Code units of the text being decoded: n bytes of UTF-8 are at most n UTF-16 units. */
const units = new Uint16Array(SHORT_UTF8);
/**
 * For longer text, plain arrays of exactly 17..64 elements: fromCharCode.apply takes V8's fast
 * path only for a packed array of the exact length (a typed array or a subarray is far slower).
 */
const exact: number[][] = [];
for (let n = 0; n <= SHORT_UTF8; n++) exact.push(new Array<number>(n).fill(0));
const fromCharCode = String.fromCharCode;

/**
 * bytes[start, end) (at most {@link SHORT_UTF8} bytes) as text, or null when it is not well-formed
 * UTF-8 or holds a zero byte: the same verdict and text as utf8Valid + utf8Decode (utf8.ts).
 */
export function utf8Short(bytes: Uint8Array, start: number, end: number): string | null {
  // ASCII without a zero byte (most names and keys): made straight from the bytes.
  let i = start;
  while (i < end) {
    const b = bytes[i];
    if (b === 0 || b >= 0x80) break;
    i++;
  }
  if (i === end && end - start <= SPREAD_UNITS) return asciiFrom(bytes, start, end - start);
  const u = units;
  let n = 0;
  for (let k = start; k < i; k++) u[n++] = bytes[k];
  while (i < end) {
    const b = bytes[i];
    if (b < 0x80) {
      if (b === 0) return null;
      u[n++] = b;
      i++;
    } else if (b >= 0xc2 && b <= 0xdf) {
      if (i + 1 >= end) return null;
      const b1 = bytes[i + 1];
      if ((b1 & 0xc0) !== 0x80) return null;
      u[n++] = ((b & 0x1f) << 6) | (b1 & 0x3f);
      i += 2;
    } else if (b >= 0xe0 && b <= 0xef) {
      if (i + 2 >= end) return null;
      const b1 = bytes[i + 1];
      const b2 = bytes[i + 2];
      // No overlongs (E0 needs A0..BF) and no surrogates (ED needs 80..9F).
      const lo = b === 0xe0 ? 0xa0 : 0x80;
      const hi = b === 0xed ? 0x9f : 0xbf;
      if (b1 < lo || b1 > hi || (b2 & 0xc0) !== 0x80) return null;
      u[n++] = ((b & 0x0f) << 12) | ((b1 & 0x3f) << 6) | (b2 & 0x3f);
      i += 3;
    } else if (b >= 0xf0 && b <= 0xf4) {
      if (i + 3 >= end) return null;
      const b1 = bytes[i + 1];
      const b2 = bytes[i + 2];
      const b3 = bytes[i + 3];
      // No overlongs (F0 needs 90..BF) and nothing past U+10FFFF (F4 needs 80..8F).
      const lo = b === 0xf0 ? 0x90 : 0x80;
      const hi = b === 0xf4 ? 0x8f : 0xbf;
      if (b1 < lo || b1 > hi || (b2 & 0xc0) !== 0x80 || (b3 & 0xc0) !== 0x80) return null;
      const c = (((b & 0x07) << 18) | ((b1 & 0x3f) << 12) | ((b2 & 0x3f) << 6) | (b3 & 0x3f)) - 0x10000;
      u[n++] = 0xd800 | (c >>> 10);
      u[n++] = 0xdc00 | (c & 0x3ff);
      i += 4;
    } else return null;
  }
  return fromUnits(u, n);
}

/** The first `n` (0..64) code units of `u` as a string. */
function fromUnits(u: Uint16Array, n: number): string {
  if (n > SPREAD_UNITS) {
    const a = exact[n];
    for (let i = 0; i < n; i++) a[i] = u[i];
    return fromCharCode.apply(null, a);
  }
  switch (n) {
    case 1:
      return fromCharCode(u[0]);
    case 2:
      return fromCharCode(u[0], u[1]);
    case 3:
      return fromCharCode(u[0], u[1], u[2]);
    case 4:
      return fromCharCode(u[0], u[1], u[2], u[3]);
    case 5:
      return fromCharCode(u[0], u[1], u[2], u[3], u[4]);
    case 6:
      return fromCharCode(u[0], u[1], u[2], u[3], u[4], u[5]);
    case 7:
      return fromCharCode(u[0], u[1], u[2], u[3], u[4], u[5], u[6]);
    case 8:
      return fromCharCode(u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7]);
    case 9:
      return fromCharCode(u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8]);
    case 10:
      return fromCharCode(u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9]);
    case 11:
      return fromCharCode(u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10]);
    case 12:
      return fromCharCode(u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11]);
    case 13:
      return fromCharCode(u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12]);
    case 14:
      return fromCharCode(
        u[0],
        u[1],
        u[2],
        u[3],
        u[4],
        u[5],
        u[6],
        u[7],
        u[8],
        u[9],
        u[10],
        u[11],
        u[12],
        u[13],
      );
    case 15:
      return fromCharCode(
        u[0],
        u[1],
        u[2],
        u[3],
        u[4],
        u[5],
        u[6],
        u[7],
        u[8],
        u[9],
        u[10],
        u[11],
        u[12],
        u[13],
        u[14],
      );
    case 16:
      return fromCharCode(
        u[0],
        u[1],
        u[2],
        u[3],
        u[4],
        u[5],
        u[6],
        u[7],
        u[8],
        u[9],
        u[10],
        u[11],
        u[12],
        u[13],
        u[14],
        u[15],
      );
    default:
      return '';
  }
}

/** `n` (0..16) ASCII bytes of `b` from `s` as a string: one argument per byte, as {@link fromUnits}. */
function asciiFrom(b: Uint8Array, s: number, n: number): string {
  switch (n) {
    case 1:
      return fromCharCode(b[s]);
    case 2:
      return fromCharCode(b[s], b[s + 1]);
    case 3:
      return fromCharCode(b[s], b[s + 1], b[s + 2]);
    case 4:
      return fromCharCode(b[s], b[s + 1], b[s + 2], b[s + 3]);
    case 5:
      return fromCharCode(b[s], b[s + 1], b[s + 2], b[s + 3], b[s + 4]);
    case 6:
      return fromCharCode(b[s], b[s + 1], b[s + 2], b[s + 3], b[s + 4], b[s + 5]);
    case 7:
      return fromCharCode(b[s], b[s + 1], b[s + 2], b[s + 3], b[s + 4], b[s + 5], b[s + 6]);
    case 8:
      return fromCharCode(b[s], b[s + 1], b[s + 2], b[s + 3], b[s + 4], b[s + 5], b[s + 6], b[s + 7]);
    case 9:
      return fromCharCode(
        b[s],
        b[s + 1],
        b[s + 2],
        b[s + 3],
        b[s + 4],
        b[s + 5],
        b[s + 6],
        b[s + 7],
        b[s + 8],
      );
    case 10:
      return fromCharCode(
        b[s],
        b[s + 1],
        b[s + 2],
        b[s + 3],
        b[s + 4],
        b[s + 5],
        b[s + 6],
        b[s + 7],
        b[s + 8],
        b[s + 9],
      );
    case 11:
      return fromCharCode(
        b[s],
        b[s + 1],
        b[s + 2],
        b[s + 3],
        b[s + 4],
        b[s + 5],
        b[s + 6],
        b[s + 7],
        b[s + 8],
        b[s + 9],
        b[s + 10],
      );
    case 12:
      return fromCharCode(
        b[s],
        b[s + 1],
        b[s + 2],
        b[s + 3],
        b[s + 4],
        b[s + 5],
        b[s + 6],
        b[s + 7],
        b[s + 8],
        b[s + 9],
        b[s + 10],
        b[s + 11],
      );
    case 13:
      return fromCharCode(
        b[s],
        b[s + 1],
        b[s + 2],
        b[s + 3],
        b[s + 4],
        b[s + 5],
        b[s + 6],
        b[s + 7],
        b[s + 8],
        b[s + 9],
        b[s + 10],
        b[s + 11],
        b[s + 12],
      );
    case 14:
      return fromCharCode(
        b[s],
        b[s + 1],
        b[s + 2],
        b[s + 3],
        b[s + 4],
        b[s + 5],
        b[s + 6],
        b[s + 7],
        b[s + 8],
        b[s + 9],
        b[s + 10],
        b[s + 11],
        b[s + 12],
        b[s + 13],
      );
    case 15:
      return fromCharCode(
        b[s],
        b[s + 1],
        b[s + 2],
        b[s + 3],
        b[s + 4],
        b[s + 5],
        b[s + 6],
        b[s + 7],
        b[s + 8],
        b[s + 9],
        b[s + 10],
        b[s + 11],
        b[s + 12],
        b[s + 13],
        b[s + 14],
      );
    case 16:
      return fromCharCode(
        b[s],
        b[s + 1],
        b[s + 2],
        b[s + 3],
        b[s + 4],
        b[s + 5],
        b[s + 6],
        b[s + 7],
        b[s + 8],
        b[s + 9],
        b[s + 10],
        b[s + 11],
        b[s + 12],
        b[s + 13],
        b[s + 14],
        b[s + 15],
      );
    default:
      return '';
  }
}
