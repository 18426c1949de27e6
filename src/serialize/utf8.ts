import { SHORT_UTF8, utf8Short } from './utf8-short.js';

/**
 * UTF-8 by hand: the stream layer needs the byte length before it writes (no allocation), writes
 * straight into its own buffer, and validates strictly on read without throwing, none of which
 * TextEncoder / TextDecoder(fatal) do without allocating or throwing.
 */

/**
 * String.prototype.charCodeAt, captured and called directly: a loaded library that leaves
 * String.prototype in dictionary mode (one adding and deleting a property is enough; ioredis's
 * dependencies do) stops V8 from inlining `text.charCodeAt(i)`, which then runs about six times
 * slower; `charCodeAt.call(text, i)` on the captured builtin is inlined either way (measured).
 */
const charCodeAt = String.prototype.charCodeAt;

/** {@link utf8Length} of text holding a lone surrogate, which UTF-8 cannot encode. */
export const LONE_SURROGATE = -1;
/** {@link utf8Length} of text holding U+0000, which the serialize STANDARD refuses in a string. */
export const INTERIOR_NUL = -2;

/** UTF-8 byte length of `text`, or {@link LONE_SURROGATE} / {@link INTERIOR_NUL}. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = charCodeAt.call(text, i);
    if (c < 0x80) {
      if (c === 0) return INTERIOR_NUL;
      bytes += 1;
    } else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdfff) {
      const next = charCodeAt.call(text, i + 1);
      if (c > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) return LONE_SURROGATE;
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * The UTF-8 byte length of a string a writer may send in at most `maxBytes` bytes; throws a
 * RangeError saying why not. The UTF-16 length is checked first, without scanning: UTF-8 never
 * takes fewer bytes than UTF-16 code units, so a longer text is refused at no cost to its size.
 */
export function checkedUtf8Length(text: string, maxBytes: number): number {
  if (text.length > maxBytes) {
    throw new RangeError(
      `string: ${text.length} UTF-16 code units exceed the declared maximum of ${maxBytes} bytes`,
    );
  }
  const length = utf8Length(text);
  if (length === LONE_SURROGATE)
    throw new RangeError('string: text holds a lone surrogate, which UTF-8 cannot encode');
  if (length === INTERIOR_NUL) {
    throw new RangeError('string: text holds U+0000, which a string may not carry (send bytes instead)');
  }
  if (length > maxBytes) {
    throw new RangeError(`string: ${length} UTF-8 bytes exceed the declared maximum of ${maxBytes}`);
  }
  return length;
}

/** Encodes `text` (already checked by {@link utf8Length}) into `out` at `offset`. */
export function utf8Encode(text: string, out: Uint8Array, offset: number): void {
  let o = offset;
  for (let i = 0; i < text.length; i++) {
    let c = charCodeAt.call(text, i);
    if (c < 0x80) out[o++] = c;
    else if (c < 0x800) {
      out[o++] = 0xc0 | (c >> 6);
      out[o++] = 0x80 | (c & 0x3f);
    } else if (c >= 0xd800 && c <= 0xdbff) {
      c = 0x10000 + ((c - 0xd800) << 10) + (charCodeAt.call(text, ++i) - 0xdc00);
      out[o++] = 0xf0 | (c >> 18);
      out[o++] = 0x80 | ((c >> 12) & 0x3f);
      out[o++] = 0x80 | ((c >> 6) & 0x3f);
      out[o++] = 0x80 | (c & 0x3f);
    } else {
      out[o++] = 0xe0 | (c >> 12);
      out[o++] = 0x80 | ((c >> 6) & 0x3f);
      out[o++] = 0x80 | (c & 0x3f);
    }
  }
}

type Write = (this: Uint8Array, text: string, offset: number, length: number) => number;

/**
 * Node's native UTF-8 writer (Buffer.prototype.utf8Write), found on globalThis like the slicers
 * below so browsers go without it; kept only if it encodes into a plain Uint8Array as
 * {@link utf8Encode} does. One native call beats the JS loop on multi-byte names.
 */
const nativeWrite = nativeUtf8Write();

function nativeUtf8Write(): Write | null {
  const write = (globalThis as { Buffer?: { prototype?: { utf8Write?: unknown } } }).Buffer?.prototype
    ?.utf8Write;
  if (typeof write !== 'function') return null;
  try {
    const probe = new Uint8Array(4);
    if ((write as Write).call(probe, '\u00e9a', 1, 3) !== 3 || probe.join() !== '0,195,169,97') return null;
  } catch {
    return null;
  }
  return write as Write;
}

/**
 * Encodes `text`, already measured as `length` UTF-8 bytes by {@link utf8Length} (no lone
 * surrogate), into `out` at `offset`: the same bytes as {@link utf8Encode}, natively when possible.
 */
export function utf8Write(text: string, out: Uint8Array, offset: number, length: number): void {
  // A native call costs more than encoding a short name by hand (about 100 ns against 30).
  if (nativeWrite === null || length <= NATIVE_WRITE_FROM) utf8Encode(text, out, offset);
  else nativeWrite.call(out, text, offset, length);
}

/** From this many bytes on, {@link utf8Write} calls Node's native writer. */
const NATIVE_WRITE_FROM = 64;

/**
 * True when bytes[start, end) is well-formed UTF-8 (no overlongs, surrogates or values > U+10FFFF)
 * without a zero byte (the serialize STANDARD refuses an interior NUL: C would see a shorter string).
 */
export function utf8Valid(bytes: Uint8Array, start: number, end: number): boolean {
  let i = start;
  while (i < end) {
    const b = bytes[i];
    if (b < 0x80) {
      if (b === 0) return false;
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      else if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      else if (b === 0xf4) hi = 0x8f;
    } else return false;
    if (i + need >= end) return false; // truncated sequence
    const b1 = bytes[i + 1];
    if (b1 < lo || b1 > hi) return false;
    for (let k = 2; k <= need; k++) {
      const bk = bytes[i + k];
      if (bk < 0x80 || bk > 0xbf) return false;
    }
    i += need + 1;
  }
  return true;
}

// ignoreBOM: a leading U+FEFF is text the writer sent, not a marker to drop.
const decoder = typeof TextDecoder === 'function' ? new TextDecoder('utf-8', { ignoreBOM: true }) : undefined;

type Slice = (this: Uint8Array, start: number, end: number) => string;

/**
 * Node's native slicers (Buffer.prototype.latin1Slice / utf8Slice), found by a feature check on
 * globalThis rather than an import so browsers simply go without them. They make a flat string in
 * one native call, faster than a JS loop even for short names (BENCHMARKS.md, lobby workload); kept
 * only if they work on a plain Uint8Array (otherwise the portable loop runs).
 */
const native = nativeSlices();

function nativeSlices(): { latin1: Slice; utf8: Slice } | null {
  const proto = (globalThis as { Buffer?: { prototype?: { latin1Slice?: unknown; utf8Slice?: unknown } } })
    .Buffer?.prototype;
  const latin1 = proto?.latin1Slice;
  const utf8 = proto?.utf8Slice;
  if (typeof latin1 !== 'function' || typeof utf8 !== 'function') return null;
  try {
    const probe = new Uint8Array([0x61, 0xc3, 0xa9]);
    if (latin1.call(probe, 0, 1) !== 'a' || utf8.call(probe, 0, 3) !== 'a\u00e9') return null;
  } catch {
    return null;
  }
  return { latin1: latin1 as Slice, utf8: utf8 as Slice };
}

/** The index of the first byte in [start, end) that is not ASCII or is zero; `end` when none. */
function asciiRunEnd(bytes: Uint8Array, start: number, end: number): number {
  let i = start;
  while (i < end) {
    const b = bytes[i];
    if (b === 0 || b >= 0x80) break;
    i++;
  }
  return i;
}

/**
 * Validates (as {@link utf8Valid}) and decodes bytes[start, end), scanning an ASCII prefix once:
 * the text, or null when it is not well-formed UTF-8 or holds a zero byte. Never throws; allocates
 * nothing but the string. Uses Node's native slicers when present, else {@link utf8ReadPortable}.
 */
export function utf8Read(bytes: Uint8Array, start: number, end: number): string | null {
  if (native === null || end - start <= SHORT_UTF8) return utf8ReadPortable(bytes, start, end);
  const i = asciiRunEnd(bytes, start, end);
  // Pure ASCII (most names and keys): nothing more to check, and Latin-1 decodes it as it is.
  if (i === end) return native.latin1.call(bytes, start, end);
  return utf8Valid(bytes, i, end) ? native.utf8.call(bytes, start, end) : null;
}

/** {@link utf8Read} in plain JavaScript, as browsers run it. */
export function utf8ReadPortable(bytes: Uint8Array, start: number, end: number): string | null {
  if (end - start <= SHORT_UTF8) return utf8Short(bytes, start, end);
  const i = asciiRunEnd(bytes, start, end);
  if (i < end && !utf8Valid(bytes, i, end)) return null;
  return utf8Decode(bytes, start, end);
}

/** Decodes well-formed UTF-8 (see {@link utf8Valid}) from bytes[start, end). */
export function utf8Decode(bytes: Uint8Array, start: number, end: number): string {
  // Short strings (names, chat) decode faster by hand than through TextDecoder's call overhead.
  if (end - start > 64 && decoder !== undefined) return decoder.decode(bytes.subarray(start, end));
  let out = '';
  let i = start;
  while (i < end) {
    const b = bytes[i];
    if (b < 0x80) {
      out += String.fromCharCode(b);
      i += 1;
    } else if (b < 0xe0) {
      out += String.fromCharCode(((b & 0x1f) << 6) | (bytes[i + 1] & 0x3f));
      i += 2;
    } else if (b < 0xf0) {
      out += String.fromCharCode(((b & 0x0f) << 12) | ((bytes[i + 1] & 0x3f) << 6) | (bytes[i + 2] & 0x3f));
      i += 3;
    } else {
      out += String.fromCodePoint(
        ((b & 0x07) << 18) |
          ((bytes[i + 1] & 0x3f) << 12) |
          ((bytes[i + 2] & 0x3f) << 6) |
          (bytes[i + 3] & 0x3f),
      );
      i += 4;
    }
  }
  return out;
}
