import { bitsRequired } from '../bits/bits-required.js';
import { FLAGS_ONLY_LANES, maxDeltaBits } from './entity-delta.js';
import type { EntityLayout } from './entity-layout.js';
import type { LaneState } from './lane-state.js';
import { ABSOLUTE_PREFIX, CLASSES, classPiece, useComponents } from './lane-value.js';
import { sameBytes } from './quantizer.js';

/** Lane kinds in `DeltaForms.kinds`. */
const PLAIN = 0;
const DELTA = 1;
const ROTATION = 2;

/**
 * Both forms of an entity delta, bit for bit as encodeDelta writes them (the full form, and the
 * repeat form: the changed lanes' values alone), encoded in one pass into two word buffers
 * instead of two WriteStreams: the server's shared deltas encode ~28,000 a tick at W4, and this
 * writes each value once as a small integer piece (no range checks, no floating point), with the
 * layout's lanes read from flat tables. Words are in the BitWriter's layout (least significant
 * bit first), so `ws.bits(word, n)` per word reproduces the stream. One per layout; trusted input
 * (states the world quantized itself).
 */
export class DeltaForms {
  /** The full and the repeat form, as words; their lengths in bits. */
  readonly full: Uint32Array;
  readonly repeat: Uint32Array;
  fullBits = 0;
  repeatBits = 0;
  /** The changed lanes, bit i for lane i (lanes past 31 not included). */
  mask = 0;
  /** The layout's scalar lanes. */
  readonly count: number;
  private readonly kinds: Uint8Array;
  private readonly widths: Uint8Array;
  private readonly rotations: Uint8Array;
  private readonly indexBits: number;
  private readonly blobLengthBits: Uint8Array;
  private fullWord = 0;
  private fullAt = 0;
  private fullUsed = 0;
  private repeatWord = 0;
  private repeatAt = 0;
  private repeatUsed = 0;

  constructor(readonly layout: EntityLayout<unknown>) {
    const lanes = layout.lanes;
    this.count = lanes.length;
    this.kinds = Uint8Array.from(lanes, (l) => (l.rotation > 0 ? ROTATION : l.delta ? DELTA : PLAIN));
    this.widths = Uint8Array.from(lanes, (l) => l.bits);
    this.rotations = Uint8Array.from(lanes, (l) => l.rotation);
    this.indexBits = bitsRequired(0, this.count);
    this.blobLengthBits = Uint8Array.from(layout.blobs, (b) => bitsRequired(0, b.maxBytes));
    // One word of slack: a 32-bit piece may close a word and leave an empty one open.
    const words = (maxDeltaBits(layout) >>> 5) + 2;
    this.full = new Uint32Array(words);
    this.repeat = new Uint32Array(words);
  }

  /** Words the full form takes (the last one partly). */
  get fullWords(): number {
    return (this.fullBits + 31) >>> 5;
  }

  get repeatWords(): number {
    return (this.repeatBits + 31) >>> 5;
  }

  /** Encodes `state` against `base` (the layout's zero state for an absolute delta). */
  encode(state: LaneState, base: LaneState): void {
    this.encodeLanes(state.lanes, 0, base.lanes, 0, state.blobs, base.blobs);
  }

  /**
   * `encode` for lanes read in place: the state's from `lanes[at]`, the baseline's from
   * `baseLanes[baseAt]` (a history's flat record), the blobs from the states.
   */
  encodeLanes(
    v: Uint32Array,
    at: number,
    b: Uint32Array,
    baseAt: number,
    stateBlobs: readonly Uint8Array[],
    baseBlobs: readonly Uint8Array[],
  ): void {
    this.fullWord = 0;
    this.fullAt = 0;
    this.fullUsed = 0;
    this.repeatWord = 0;
    this.repeatAt = 0;
    this.repeatUsed = 0;
    const count = this.count;
    let mask = 0;
    let changed = 0;
    for (let i = 0; i < count; i++) {
      if (v[at + i] === b[baseAt + i]) continue;
      changed++;
      if (i < 31) mask |= 1 << i;
    }
    this.mask = mask;
    // The list form only past FLAGS_ONLY_LANES, when strictly cheaper (encodeDelta's rule).
    const list = count > FLAGS_ONLY_LANES && (changed + 1) * this.indexBits < count;
    if (count > FLAGS_ONLY_LANES) this.putFull(list ? 1 : 0, 1);
    for (let i = 0; i < count; i++) {
      const value = v[at + i];
      const was = b[baseAt + i];
      if (value === was) {
        if (!list) this.putFull(0, 1);
        continue;
      }
      if (list) this.putFull(i, this.indexBits);
      else this.putFull(1, 1);
      const kind = this.kinds[i];
      if (kind === DELTA) {
        const piece = classPiece(this.widths[i], value, was);
        if (piece >= 0) this.putBoth(piece & 0xffff, piece >>> 16);
        else {
          this.putBoth(ABSOLUTE_PREFIX, CLASSES);
          this.putBoth(value, this.widths[i]);
        }
      } else if (kind === PLAIN) this.putBoth(value, this.widths[i]);
      else this.putRotation(this.widths[i], this.rotations[i], value, was);
    }
    if (list) this.putFull(count, this.indexBits);
    const blobs = this.blobLengthBits;
    for (let i = 0; i < blobs.length; i++) {
      const blob = stateBlobs[i];
      if (sameBytes(blob, baseBlobs[i])) {
        this.putBoth(0, 1);
        continue;
      }
      this.putBoth(1, 1);
      if (blobs[i] > 0) this.putBoth(blob.length, blobs[i]);
      for (let j = 0; j < blob.length; j++) this.putBoth(blob[j], 8);
    }
    this.fullBits = this.fullAt * 32 + this.fullUsed;
    this.repeatBits = this.repeatAt * 32 + this.repeatUsed;
    if (this.fullUsed > 0) this.full[this.fullAt] = this.fullWord;
    if (this.repeatUsed > 0) this.repeat[this.repeatAt] = this.repeatWord;
  }

  /** A rotation lane (lane-value.ts, writeRotation): the component form or the lane as it is. */
  private putRotation(width: number, bits: number, value: number, base: number): void {
    if (!useComponents(width, bits, value, base)) {
      this.putBoth(0, 1);
      this.putBoth(value, width);
      return;
    }
    this.putBoth(1, 1);
    const componentMask = 2 ** bits - 1;
    for (let k = 0; k < 3; k++) {
      const shift = 2 + k * bits;
      const c = (value >>> shift) & componentMask;
      const was = (base >>> shift) & componentMask;
      if (c === was) {
        this.putBoth(0, 1);
        continue;
      }
      this.putBoth(1, 1);
      const piece = classPiece(bits, c, was);
      if (piece >= 0) this.putBoth(piece & 0xffff, piece >>> 16);
      else {
        this.putBoth(ABSOLUTE_PREFIX, CLASSES);
        this.putBoth(c, bits);
      }
    }
  }

  private putBoth(value: number, bits: number): void {
    this.putFull(value, bits);
    this.putRepeat(value, bits);
  }

  /** Appends the low `bits` (1..32) of `value`, which holds no higher bits. */
  private putFull(value: number, bits: number): void {
    const used = this.fullUsed;
    this.fullWord |= value << used;
    if (used + bits < 32) {
      this.fullUsed = used + bits;
      return;
    }
    this.full[this.fullAt++] = this.fullWord;
    // The bits of value past the word; none when it ended exactly there (a shift by 32 is by 0).
    this.fullWord = used === 0 ? 0 : value >>> (32 - used);
    this.fullUsed = used + bits - 32;
  }

  private putRepeat(value: number, bits: number): void {
    const used = this.repeatUsed;
    this.repeatWord |= value << used;
    if (used + bits < 32) {
      this.repeatUsed = used + bits;
      return;
    }
    this.repeat[this.repeatAt++] = this.repeatWord;
    this.repeatWord = used === 0 ? 0 : value >>> (32 - used);
    this.repeatUsed = used + bits - 32;
  }
}
