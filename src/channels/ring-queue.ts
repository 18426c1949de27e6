const FIRST_SLOTS = 8;

/**
 * A FIFO of at most `capacity` items over a ring of slots: push and shift move indices, never
 * elements, and allocate nothing (an array's `shift` / `splice` copy, and `splice` returns a new
 * array). The ring starts small and doubles when full, up to `capacity`: an idle queue costs a few
 * slots, a busy one what it held at most.
 */
export class RingQueue<T> {
  private slots: (T | undefined)[];
  private head = 0;
  length = 0;

  constructor(readonly capacity: number) {
    this.slots = []; // slots are made by the first push
  }

  /** Appends; the caller checks `length < capacity` first (a full queue is the caller's error to report). */
  push(item: T): void {
    if (this.length === this.slots.length) this.grow();
    this.slots[(this.head + this.length) % this.slots.length] = item;
    this.length++;
  }

  /** Doubles the ring (at most to `capacity`), the oldest item first. */
  private grow(): void {
    const size = this.slots.length;
    const slots = new Array<T | undefined>(Math.min(this.capacity, Math.max(FIRST_SLOTS, size * 2))).fill(
      undefined,
    );
    for (let k = 0; k < this.length; k++) slots[k] = this.slots[(this.head + k) % size];
    this.slots = slots;
    this.head = 0;
  }

  /** The k-th item from the front (0 = oldest); k < length. */
  at(k: number): T {
    return this.slots[(this.head + k) % this.slots.length] as T;
  }

  /** Removes and returns the oldest item, or undefined when empty. */
  shift(): T | undefined {
    if (this.length === 0) return undefined;
    const item = this.slots[this.head];
    this.slots[this.head] = undefined; // let it be collected
    this.head = (this.head + 1) % this.slots.length;
    this.length--;
    return item;
  }

  clear(): void {
    while (this.length > 0) this.shift();
  }
}
