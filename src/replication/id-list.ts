/**
 * A list of entity ids in an Int32Array that is refilled every tick without allocating: it
 * counts its own length and only grows (doubling) when a tick needs more room than any before.
 * Entries past `length` are stale and never read.
 */
/** Capacity a list keeps after a burst (see trim). */
const TRIM_FLOOR = 16;

/** Ciura's gap sequence, extended by × 2.25, smallest first. */
const SHELL_GAPS = [1, 4, 10, 23, 57, 132, 301, 701, 1577, 3548, 7983, 17961, 40412];

export class IdList {
  items: Int32Array;
  length = 0;

  constructor(initialCapacity = 16) {
    this.items = new Int32Array(Math.max(1, initialCapacity));
  }

  push(id: number): void {
    if (this.length === this.items.length) this.grow(this.length * 2);
    this.items[this.length++] = id;
  }

  at(index: number): number {
    return this.items[index];
  }

  clear(): void {
    this.length = 0;
  }

  /**
   * Gives back the room a burst left behind (a join's or a teleport's hundreds of entries) once
   * the live entries use an eighth of it, keeping at least TRIM_FLOOR: memory follows use, and a
   * list that stays under TRIM_FLOOR never reallocates.
   */
  trim(): void {
    const capacity = this.items.length;
    if (capacity <= TRIM_FLOOR || this.length * 8 > capacity) return;
    const smaller = new Int32Array(Math.max(TRIM_FLOOR, this.length * 2));
    smaller.set(this.items.subarray(0, this.length));
    this.items = smaller;
  }

  indexOf(id: number): number {
    for (let i = 0; i < this.length; i++) if (this.items[i] === id) return i;
    return -1;
  }

  /** Removes the entry at `index` by moving the last one into its place (order is not kept). */
  swapRemove(index: number): void {
    this.items[index] = this.items[--this.length];
  }

  /**
   * Sorts the live entries ascending in place, allocating nothing (a subarray().sort() makes a
   * view per call; this runs per packet): Shell sort with Ciura's gaps, fine for the hundreds of
   * ids a packet carries.
   */
  sort(): void {
    const a = this.items;
    const n = this.length;
    for (let g = SHELL_GAPS.length - 1; g >= 0; g--) {
      const gap = SHELL_GAPS[g];
      if (gap >= n) continue;
      for (let i = gap; i < n; i++) {
        const v = a[i];
        let j = i;
        for (; j >= gap && a[j - gap] > v; j -= gap) a[j] = a[j - gap];
        a[j] = v;
      }
    }
  }

  /** A standalone copy of the live entries. */
  toArray(): number[] {
    return Array.from(this.items.subarray(0, this.length));
  }

  private grow(capacity: number): void {
    const bigger = new Int32Array(capacity);
    bigger.set(this.items);
    this.items = bigger;
  }
}
