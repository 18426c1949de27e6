import { sequenceGreaterThan, sequenceLessThan } from './sequence.js';

const EMPTY = 0xffffffff;

/**
 * A fixed-size ring of entries indexed by 16-bit sequence modulo its size (Fiedler's sequence
 * buffer): constant-time insert, find and remove, each entry made when its slot is first used, then reused. Each slot
 * remembers the exact sequence it holds, so an entry from before a wrap is never mistaken for
 * a current one; and inserting a newer sequence empties every slot between the previous newest
 * and it, which keeps that true even at 99% loss, when most sequences never arrive.
 */
export class SequenceBuffer<T> {
  /** One past the newest sequence inserted (mod 65536). */
  sequence = 0;
  private readonly slots: Uint32Array;
  private readonly entries: (T | undefined)[];

  constructor(
    readonly size: number,
    private readonly create: () => T,
  ) {
    if (!Number.isInteger(size) || size < 1 || size > 65536) {
      throw new RangeError(`SequenceBuffer size must be an integer in [1, 65536], got ${size}`);
    }
    this.slots = new Uint32Array(size).fill(EMPTY);
    this.entries = new Array<T | undefined>(size).fill(undefined);
  }

  reset(): void {
    this.sequence = 0;
    this.slots.fill(EMPTY);
  }

  /** False when `sequence` is too old to hold (more than `size` behind the newest). */
  canInsert(sequence: number): boolean {
    return !sequenceLessThan(sequence, (this.sequence - this.size) & 0xffff);
  }

  /**
   * Claims the slot for `sequence` and returns its (reused) entry, or undefined when the
   * sequence is too old. The caller overwrites the entry's fields.
   */
  insert(sequence: number): T | undefined {
    if (!this.canInsert(sequence)) return undefined;
    this.advance(sequence);
    const index = sequence % this.size;
    this.slots[index] = sequence;
    let entry = this.entries[index];
    if (entry === undefined) {
      entry = this.create();
      this.entries[index] = entry;
    }
    return entry;
  }

  /** Moves the newest mark to `sequence` (emptying the slots skipped) if it is newer. */
  advance(sequence: number): void {
    if (sequenceGreaterThan((sequence + 1) & 0xffff, this.sequence)) {
      this.removeRange(this.sequence, sequence);
      this.sequence = (sequence + 1) & 0xffff;
    }
  }

  /** Empties the slots of sequences [start, finish] (wrapping), all of them when the range is wider than the buffer. */
  removeRange(start: number, finish: number): void {
    const last = finish < start ? finish + 65536 : finish;
    if (last - start < this.size) {
      for (let s = start; s <= last; s++) this.slots[s % this.size] = EMPTY;
    } else {
      this.slots.fill(EMPTY);
    }
  }

  remove(sequence: number): void {
    this.slots[sequence % this.size] = EMPTY;
  }

  exists(sequence: number): boolean {
    return this.slots[sequence % this.size] === sequence;
  }

  find(sequence: number): T | undefined {
    const index = sequence % this.size;
    return this.slots[index] === sequence ? this.entries[index] : undefined;
  }

  /** The sequence held at `index`, or -1 when the slot is empty. */
  sequenceAt(index: number): number {
    const s = this.slots[index];
    return s === EMPTY ? -1 : s;
  }

  /** The entry of slot `index`, undefined when the slot was never used. */
  entryAt(index: number): T | undefined {
    return this.entries[index];
  }
}
