/**
 * A list refilled for every packet without allocating. Emptying a JS array (`length = 0`) makes
 * V8 drop its backing store, so refilling it allocates again each time; this keeps the store and
 * counts its own length instead. Items past `length` are stale and never read.
 */
export class ScratchList<T> {
  readonly items: T[] = [];
  length = 0;

  push(item: T): void {
    this.items[this.length++] = item;
  }

  clear(): void {
    this.length = 0;
  }

  /** A standalone copy of the live items. */
  toArray(): T[] {
    return this.items.slice(0, this.length);
  }
}
