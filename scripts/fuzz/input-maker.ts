import { randomInt } from '../../src/random/prng.js';

// ---------------------------------------------------------------------------------------------
// Inputs: random buffers and mutations of valid encodings
// ---------------------------------------------------------------------------------------------

const INTERESTING_BYTES = [0x00, 0xff, 0x7f, 0x80, 0x01, 0xfe, 0x78, 0x12];
const INTERESTING_WORDS = [0, 0xffffffff, 0x80000000, 0x7fffffff, 1, 0x12345678, 0xffff, 0x10000];

/**
 * Ticks, sequences and frames where arithmetic breaks: around 0, 2^16 (16-bit sequences and
 * relative ticks), 2^31 (int32) and 2^32 − 1 (uint32), each ±1 and ±2 (kept within uint32).
 */
export const EDGE_NUMBERS: readonly number[] = [0, 2 ** 16, 2 ** 31, 2 ** 32 - 1].flatMap((base) =>
  [-2, -1, 0, 1, 2].map((d) => base + d).filter((v) => v >= 0 && v <= 0xffffffff),
);
/** Field widths an edge number is written in: a uint32, a 16-bit sequence, an 8-bit offset. */
const EDGE_WIDTHS = [32, 32, 16, 8];
/** Headers (ticks, sequences, counts) sit at the front: half the edge numbers land in these bits. */
const HEADER_BITS = 96;

export class InputMaker {
  private readonly buffer: Uint8Array;

  constructor(readonly capacity: number) {
    this.buffer = new Uint8Array(capacity);
  }

  private fill(rng: () => number, start: number, end: number): void {
    const b = this.buffer;
    for (let i = start; i < end; i += 4) {
      let word = (rng() * 4294967296) >>> 0;
      for (let k = 0; k < 4 && i + k < end; k++) {
        b[i + k] = word & 0xff;
        word >>>= 8;
      }
    }
  }

  /** `length` random bytes (a view, valid until the next call). */
  random(rng: () => number, length: number): Uint8Array {
    const n = Math.min(length, this.capacity);
    this.fill(rng, 0, n);
    return this.buffer.subarray(0, n);
  }

  /**
   * `base` with one or two edge numbers (EDGE_NUMBERS) written over a field's worth of bits at a
   * bit offset, in the streams' order (bit i of the value at stream bit offset + i, least
   * significant first in each byte): a tick or sequence field of a valid packet then claims a value
   * at the edge of its range while the rest still parses. A view, valid until the next call.
   */
  edgeNumbers(rng: () => number, base: Uint8Array): Uint8Array {
    const b = this.buffer;
    const len = Math.min(base.length, this.capacity);
    b.set(base.subarray(0, len));
    const rounds = rng() < 0.7 ? 1 : 2;
    for (let round = 0; round < rounds; round++) {
      const width = EDGE_WIDTHS[randomInt(rng, EDGE_WIDTHS.length)];
      if (len * 8 < width) break;
      const span = len * 8 - width + 1;
      const at = rng() < 0.5 ? randomInt(rng, Math.min(span, HEADER_BITS)) : randomInt(rng, span);
      const value = EDGE_NUMBERS[randomInt(rng, EDGE_NUMBERS.length)];
      for (let i = 0; i < width; i++) {
        const bit = at + i;
        const mask = 1 << (bit & 7);
        if (Math.floor(value / 2 ** i) % 2 === 1) b[bit >>> 3] |= mask;
        else b[bit >>> 3] &= ~mask;
      }
    }
    return b.subarray(0, len);
  }

  /**
   * `base` with one to four mutations (a view, valid until the next call): bit flips, byte and word
   * overwrites, truncation, extension, splicing with `other`, byte insertion or deletion, copying a
   * chunk within.
   */
  mutate(rng: () => number, base: Uint8Array, other: Uint8Array): Uint8Array {
    const b = this.buffer;
    const cap = this.capacity;
    let len = Math.min(base.length, cap);
    b.set(base.subarray(0, len));
    const rounds = rng() < 0.6 ? 1 : 2 + randomInt(rng, 3);
    for (let round = 0; round < rounds; round++) {
      switch (randomInt(rng, 10)) {
        case 0:
        case 1:
        case 2: {
          // Bit flips: the commonest corruption, and the one that keeps every length intact.
          if (len === 0) break;
          const flips = rng() < 0.7 ? 1 : 2 + randomInt(rng, 4);
          for (let k = 0; k < flips; k++) {
            const bit = randomInt(rng, len * 8);
            b[bit >>> 3] ^= 1 << (bit & 7);
          }
          break;
        }
        case 3: {
          if (len === 0) break;
          const count = 1 + randomInt(rng, 3);
          for (let k = 0; k < count; k++) {
            b[randomInt(rng, len)] =
              rng() < 0.5 ? INTERESTING_BYTES[randomInt(rng, INTERESTING_BYTES.length)] : randomInt(rng, 256);
          }
          break;
        }
        case 4: {
          if (len < 4) break;
          const at = randomInt(rng, len - 3);
          const word = INTERESTING_WORDS[randomInt(rng, INTERESTING_WORDS.length)];
          b[at] = word & 0xff;
          b[at + 1] = (word >>> 8) & 0xff;
          b[at + 2] = (word >>> 16) & 0xff;
          b[at + 3] = word >>> 24;
          break;
        }
        case 5:
          // Truncation: anywhere, or just a few bytes off the end.
          if (len === 0) break;
          len = rng() < 0.5 ? randomInt(rng, len) : Math.max(0, len - 1 - randomInt(rng, Math.min(len, 8)));
          break;
        case 6: {
          const add = 1 + randomInt(rng, 16);
          if (len + add > cap) break;
          if (rng() < 0.5) b.fill(0, len, len + add);
          else this.fill(rng, len, len + add);
          len += add;
          break;
        }
        case 7: {
          // Splice: a prefix of this packet, the tail of another (often from the same offset).
          const cut = randomInt(rng, len + 1);
          const from = rng() < 0.5 ? Math.min(cut, other.length) : randomInt(rng, other.length + 1);
          const tail = Math.min(other.length - from, cap - cut);
          b.set(other.subarray(from, from + tail), cut);
          len = cut + tail;
          break;
        }
        case 8: {
          if (rng() < 0.5 && len > 0) {
            const at = randomInt(rng, len);
            b.copyWithin(at, at + 1, len);
            len--;
          } else if (len < cap) {
            const at = randomInt(rng, len + 1);
            b.copyWithin(at + 1, at, len);
            b[at] = randomInt(rng, 256);
            len++;
          }
          break;
        }
        case 9: {
          if (len < 2) break;
          const from = randomInt(rng, len);
          const size = 1 + randomInt(rng, Math.min(16, len - from));
          b.copyWithin(randomInt(rng, len - size + 1), from, from + size);
          break;
        }
      }
    }
    return b.subarray(0, len);
  }
}
