/**
 * A list of entity ids in an Int32Array that is refilled every tick without allocating: it
 * counts its own length and only grows (doubling) when a tick needs more room than any before.
 * Entries past `length` are stale and never read.
 */
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

  indexOf(id: number): number {
    for (let i = 0; i < this.length; i++) if (this.items[i] === id) return i;
    return -1;
  }

  /** Removes the entry at `index` by moving the last one into its place (order is not kept). */
  swapRemove(index: number): void {
    this.items[index] = this.items[--this.length];
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
