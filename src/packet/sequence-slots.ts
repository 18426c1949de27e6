import { sequenceGreaterThan, sequenceLessThan } from './sequence.js';

const EMPTY = 0xffffffff;
const FIRST_CAPACITY = 16;
/** The one empty slot every lazy buffer starts with, shared: nothing is written to it (insert grows first). */
const NO_SLOTS = new Uint32Array([EMPTY]);

/**
 * The index of a sequence buffer that grows with use: it behaves as a ring of `size` slots indexed
 * by 16-bit sequence (SequenceBuffer's rules: an entry is held while it is within `size` of the
 * newest sequence and not removed), but starts with a few slots and doubles only when an entry that
 * must be kept would share a slot with a newer one; it reaches `size`, the configured maximum, only
 * when that many entries are live at once. An idle connection keeps a handful of slots instead of
 * thousands. Subclasses keep their entries' fields in typed arrays indexed like the slots (no object
 * per entry) and move them when the slots grow (`moveEntries`).
 *
 * Below `size`, every slot holds an entry inside the window (entries leaving it are emptied as the
 * newest advances), so find is one comparison, as in a full ring. At `size` the ring is exactly the
 * full one, wrap behaviour included.
 */
export abstract class SequenceSlots {
  /** One past the newest sequence inserted or advanced to (mod 65536). */
  sequence = 0;
  capacity: number;
  protected slots: Uint32Array;

  /**
   * `lazy`: no slots of its own until the first insert (a queue that may never be used);
   * `firstCapacity`: the slots it starts with otherwise (a power of two; at most `size`).
   */
  constructor(
    readonly size: number,
    lazy = false,
    firstCapacity = FIRST_CAPACITY,
  ) {
    if (!Number.isInteger(size) || size < 1 || size > 65536) {
      throw new RangeError(`sequence buffer size must be an integer in [1, 65536], got ${size}`);
    }
    if (lazy) {
      this.capacity = 1;
      this.slots = NO_SLOTS;
    } else {
      this.capacity = Math.min(size, firstCapacity);
      this.slots = new Uint32Array(this.capacity).fill(EMPTY);
    }
  }

  /** Gives the entry arrays `capacity` slots, moving the entry at each old index i to `to[i]` (-1: none). */
  protected abstract moveEntries(capacity: number, to: Int32Array): void;

  /**
   * Whether the entry of `held` (at `index`) may be dropped to make room for `sequence` instead of
   * growing (default never: every live entry is kept, as a full ring keeps it).
   */
  protected mayReplace(_index: number, _held: number, _sequence: number): boolean {
    return false;
  }

  reset(): void {
    this.sequence = 0;
    if (this.slots !== NO_SLOTS) this.slots.fill(EMPTY);
  }

  /** False when `sequence` is too old to hold (more than `size` behind the newest). */
  canInsert(sequence: number): boolean {
    return !sequenceLessThan(sequence, (this.sequence - this.size) & 0xffff);
  }

  /** Claims the slot for `sequence` and returns its index, or -1 when the sequence is too old. */
  insertIndex(sequence: number): number {
    if (!this.canInsert(sequence)) return -1;
    this.advance(sequence);
    if (this.slots === NO_SLOTS) this.grow(sequence);
    let index = sequence % this.capacity;
    let held = this.slots[index];
    while (held !== EMPTY && held !== sequence && this.capacity < this.size) {
      if (this.mayReplace(index, held, sequence)) break;
      this.grow(sequence);
      index = sequence % this.capacity;
      held = this.slots[index];
    }
    this.slots[index] = sequence;
    return index;
  }

  /** Moves the newest mark to `sequence` (emptying the slots of entries that leave the window) if it is newer. */
  advance(sequence: number): void {
    if (!sequenceGreaterThan((sequence + 1) & 0xffff, this.sequence)) return;
    if (this.capacity === this.size) {
      this.removeRange(this.sequence, sequence);
    } else {
      // The entries leaving: [old newest + 1 - size, sequence - size].
      const first = (this.sequence - this.size) & 0xffff;
      const count = ((sequence - this.sequence) & 0xffff) + 1;
      if (count >= this.capacity) this.sweep(sequence);
      else
        for (let k = 0; k < count; k++) {
          const s = (first + k) & 0xffff;
          const index = s % this.capacity;
          if (this.slots[index] === s) this.slots[index] = EMPTY;
        }
    }
    this.sequence = (sequence + 1) & 0xffff;
  }

  /** Empties every slot whose entry is `size` or more behind `newest`. */
  private sweep(newest: number): void {
    for (let i = 0; i < this.capacity; i++) {
      const held = this.slots[i];
      if (held !== EMPTY && ((newest - held) & 0xffff) >= this.size) this.slots[i] = EMPTY;
    }
  }

  /** Full ring only: empties the slots of sequences [start, finish] (wrapping), all when the range is wider. */
  private removeRange(start: number, finish: number): void {
    const last = finish < start ? finish + 65536 : finish;
    if (this.slots === NO_SLOTS) return;
    if (last - start < this.size) {
      for (let s = start; s <= last; s++) this.slots[s % this.size] = EMPTY;
    } else {
      this.slots.fill(EMPTY);
    }
  }

  /** Doubles (or more) until the live entries and `incoming` each have a slot of their own, or to `size`. */
  private grow(incoming: number): void {
    const old = this.slots;
    let capacity = this.slots === NO_SLOTS ? Math.min(this.size, FIRST_CAPACITY >>> 1) : this.capacity;
    do capacity = Math.min(this.size, capacity * 2);
    while (capacity < this.size && !this.fits(old, incoming, capacity));
    const slots = new Uint32Array(capacity).fill(EMPTY);
    const to = new Int32Array(old.length).fill(-1);
    for (let i = 0; i < old.length; i++) {
      const held = old[i];
      if (held === EMPTY) continue;
      to[i] = held % capacity;
      slots[to[i]] = held;
    }
    this.moveEntries(capacity, to);
    this.slots = slots;
    this.capacity = capacity;
  }

  private fits(old: Uint32Array, incoming: number, capacity: number): boolean {
    const taken = new Uint8Array(capacity);
    taken[incoming % capacity] = 1;
    for (let i = 0; i < old.length; i++) {
      const held = old[i];
      if (held === EMPTY || held === incoming) continue;
      if (taken[held % capacity] !== 0) return false;
      taken[held % capacity] = 1;
    }
    return true;
  }

  remove(sequence: number): void {
    const index = sequence % this.capacity;
    if (this.slots[index] === sequence) this.slots[index] = EMPTY;
  }

  exists(sequence: number): boolean {
    return this.slots[sequence % this.capacity] === sequence;
  }

  /** The index of `sequence`'s entry, or -1 when it is not held. */
  indexOf(sequence: number): number {
    const index = sequence % this.capacity;
    return this.slots[index] === sequence ? index : -1;
  }
}

/** Sequences only (which are held), no entry data: e.g. the received packets, for ack bits and duplicates. */
export class SequenceSet extends SequenceSlots {
  protected moveEntries(): void {}

  /** Marks `sequence` held; false when it is too old. */
  insert(sequence: number): boolean {
    return this.insertIndex(sequence) >= 0;
  }
}

/** A new array of `capacity` with the entries of `old` moved to their new indices. */
export function moved<A extends Float64Array | Uint32Array | Uint8Array>(
  old: A,
  make: (capacity: number) => A,
  capacity: number,
  to: Int32Array,
): A {
  const next = make(capacity);
  for (let i = 0; i < to.length; i++) if (to[i] >= 0) next[to[i]] = old[i];
  return next;
}

/** `moved` for an array of references. */
export function movedRefs<T>(old: T[], capacity: number, to: Int32Array, empty: T): T[] {
  const next = new Array<T>(capacity).fill(empty);
  for (let i = 0; i < to.length; i++) if (to[i] >= 0) next[to[i]] = old[i];
  return next;
}
