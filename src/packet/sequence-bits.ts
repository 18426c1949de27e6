import { sequenceGreaterThan, sequenceLessThan } from './sequence.js';
import { SequenceSet } from './sequence-slots.js';

/**
 * Which sequences of a window of `size` (a power of two, so it divides the sequence space) are
 * held: one bit each. It answers exactly as a ring of `size` slots holding their sequences does
 * (SequenceBuffer's rules), since in such a window every sequence has a slot of its own: the bit of
 * a sequence is cleared as it leaves the window, and a sequence outside the window is never held.
 * 512 received packets cost 64 bytes instead of 2 KB.
 */
export class SequenceBits {
  /** One past the newest sequence inserted or advanced to (mod 65536). */
  sequence = 0;
  private readonly bits: Uint32Array;

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 32 || size > 65536 || (size & (size - 1)) !== 0)
      throw new RangeError(`SequenceBits size must be a power of two in [32, 65536], got ${size}`);
    this.bits = new Uint32Array(size >>> 5);
  }

  reset(): void {
    this.sequence = 0;
    this.bits.fill(0);
  }

  /** False when `sequence` is too old to hold (more than `size` behind the newest). */
  canInsert(sequence: number): boolean {
    return !sequenceLessThan(sequence, (this.sequence - this.size) & 0xffff);
  }

  /** Marks `sequence` held (advancing to it if newer); false when it is too old. */
  insert(sequence: number): boolean {
    if (!this.canInsert(sequence)) return false;
    this.advance(sequence);
    const i = sequence & (this.size - 1);
    this.bits[i >>> 5] |= 1 << (i & 31);
    return true;
  }

  /** Moves the newest mark to `sequence` if it is newer, clearing the sequences that leave the window. */
  advance(sequence: number): void {
    if (!sequenceGreaterThan((sequence + 1) & 0xffff, this.sequence)) return;
    // The bits of the sequences entering the window are those of the sequences leaving it.
    const count = ((sequence - this.sequence) & 0xffff) + 1;
    if (count >= this.size) this.bits.fill(0);
    else
      for (let k = 0, s = this.sequence; k < count; k++, s++) {
        const i = s & (this.size - 1);
        this.bits[i >>> 5] &= ~(1 << (i & 31));
      }
    this.sequence = (sequence + 1) & 0xffff;
  }

  exists(sequence: number): boolean {
    // Within the window: no more than size - 1 behind the newest (and not ahead of it).
    if (((this.sequence - 1 - sequence) & 0xffff) >= this.size) return false;
    const i = sequence & (this.size - 1);
    return (this.bits[i >>> 5] & (1 << (i & 31))) !== 0;
  }

  /**
   * Bit i set when `ack - i` is held (i < 32): the packet header's ack bits. For the newest (what
   * every packet acks) the 32 bits are read as one word and reversed, not tested one by one.
   */
  ackBits(ack: number): number {
    if (ack !== ((this.sequence - 1) & 0xffff)) return ackBitsOf(this, ack);
    // The newest and the 31 before it are all in the window (size >= 32): the bits of positions
    // ack - 31 .. ack, oldest in bit 0, across a word boundary and the ring's wrap.
    const words = this.bits;
    const low = (ack - 31) & (this.size - 1);
    const w = low >>> 5;
    const shift = low & 31;
    let v = words[w] >>> shift;
    if (shift !== 0) v |= words[(w + 1) & (words.length - 1)] << (32 - shift);
    v = ((v >>> 1) & 0x55555555) | ((v & 0x55555555) << 1);
    v = ((v >>> 2) & 0x33333333) | ((v & 0x33333333) << 2);
    v = ((v >>> 4) & 0x0f0f0f0f) | ((v & 0x0f0f0f0f) << 4);
    v = ((v >>> 8) & 0x00ff00ff) | ((v & 0x00ff00ff) << 8);
    return ((v >>> 16) | (v << 16)) >>> 0;
  }
}

/** Ack bits by testing each of the 32 sequences: bit i set when `ack - i` is held. */
export function ackBitsOf(held: { exists(sequence: number): boolean }, ack: number): number {
  let bits = 0;
  for (let i = 0; i < 32; i++) if (held.exists((ack - i) & 0xffff)) bits |= 1 << i;
  return bits >>> 0;
}

/**
 * The sequences a ReliableEndpoint has received, over the whole received window (`size`, for ack
 * bits and duplicates): a bit each when `size` is a power of two of at least 32 (the defaults),
 * else growing slots. Their times and sizes are not kept: the statistics tally them as they arrive.
 */
export function receivedSequences(size: number): SequenceBits | SequenceSet {
  return size >= 32 && (size & (size - 1)) === 0 ? new SequenceBits(size) : new SequenceSet(size);
}
