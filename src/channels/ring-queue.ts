/**
 * A fixed-capacity FIFO over a ring of slots: push and shift move indices, never elements, and
 * allocate nothing (an array's `shift` / `splice` copy, and `splice` returns a new array).
 */
export class RingQueue<T> {
  private readonly slots: (T | undefined)[];
  private head = 0;
  length = 0;

  constructor(readonly capacity: number) {
    this.slots = new Array<T | undefined>(capacity).fill(undefined);
  }

  /** Appends; the caller checks `length < capacity` first (a full queue is the caller's error to report). */
  push(item: T): void {
    this.slots[(this.head + this.length) % this.capacity] = item;
    this.length++;
  }

  /** The k-th item from the front (0 = oldest); k < length. */
  at(k: number): T {
    return this.slots[(this.head + k) % this.capacity] as T;
  }

  /** Removes and returns the oldest item, or undefined when empty. */
  shift(): T | undefined {
    if (this.length === 0) return undefined;
    const item = this.slots[this.head];
    this.slots[this.head] = undefined; // let it be collected
    this.head = (this.head + 1) % this.capacity;
    this.length--;
    return item;
  }

  clear(): void {
    while (this.length > 0) this.shift();
  }
}
