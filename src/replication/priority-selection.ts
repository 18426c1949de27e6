/**
 * Fills one client's packet in descending priority. The caller measures each offered entity
 * with its own encoder and says whether to send it:
 *
 *     selection.begin(view, budgetBits);
 *     for (let id = selection.next(); id >= 0; id = selection.next()) {
 *       const bits = measure(id);
 *       if (selection.take(bits)) write(id);   // false: it did not fit, try the next one
 *     }
 *
 * `take` refuses what would exceed the budget, so the packet never does; a sent entity's
 * priority returns to 0. After `maxMisfits` refusals the selection stops (as the channels do):
 * smaller entities further down might still fit a nearly full packet, but trying them all costs
 * more than the space is worth. `skip()` passes over an entity without a misfit (nothing to send).
 *
 * Order without sorting: the candidates are heapified by priority (O(n)) and popped one at a time
 * (O(log n) each), so a packet that carries k of n relevant entities costs O(n + k log n) rather
 * than a full sort. Ties are broken arbitrarily. One selection object serves every client in
 * turn; it allocates only when a view has more members than any before. Finish a selection
 * before the next interest update: it walks the view's slots, which the update rearranges.
 */

import type { InterestView } from './interest-view.js';

export const DEFAULT_MAX_MISFITS = 16;

export class PrioritySelection {
  readonly maxMisfits: number;
  /** Slots of the view in heap order (a max-heap on priority) in [0, heapSize). */
  private heap = new Int32Array(64);
  /**
   * Each heap entry's priority beside its slot: the sift compares keys without a load through
   * the slot (the same comparisons as on `view.priority`, so the same order, ties included).
   */
  private keys = new Float32Array(64);
  private heapSize = 0;
  private view: InterestView | undefined;
  private offered = -1;
  private _budgetBits = 0;
  private _usedBits = 0;
  private _sent = 0;
  private _misfits = 0;

  constructor(maxMisfits = DEFAULT_MAX_MISFITS) {
    if (!Number.isInteger(maxMisfits) || maxMisfits < 0)
      throw new RangeError(`PrioritySelection: maxMisfits must be an integer >= 0, got ${maxMisfits}`);
    this.maxMisfits = maxMisfits;
  }

  get usedBits(): number {
    return this._usedBits;
  }

  get remainingBits(): number {
    return this._budgetBits - this._usedBits;
  }

  /** Entities taken since `begin`. */
  get sent(): number {
    return this._sent;
  }

  get misfits(): number {
    return this._misfits;
  }

  /** @internal Members not offered yet (0 once `next` went through them all). */
  get pending(): number {
    return this.heapSize;
  }

  /** @internal The view slot of the entity last offered by `next` (until its take or skip), or -1. */
  get offeredSlot(): number {
    return this.offered;
  }

  /** Starts filling a packet of `budgetBits` for a view (after its priorities were accumulated). */
  begin(view: InterestView, budgetBits: number): void {
    if (!(budgetBits >= 0 && budgetBits !== Number.POSITIVE_INFINITY))
      throw new RangeError(
        `PrioritySelection.begin: budgetBits must be a finite number >= 0, got ${budgetBits}`,
      );
    this.view = view;
    this.offered = -1;
    this._budgetBits = budgetBits;
    this._usedBits = 0;
    this._sent = 0;
    this._misfits = 0;
    const n = view.count;
    if (this.heap.length < n) {
      this.heap = new Int32Array(Math.max(n, this.heap.length * 2));
      this.keys = new Float32Array(this.heap.length);
    }
    const { heap, keys } = this;
    const priority = view.priority;
    for (let i = 0; i < n; i++) {
      heap[i] = i;
      keys[i] = priority[i];
    }
    this.heapSize = n;
    for (let i = (n >> 1) - 1; i >= 0; i--) siftDown(heap, keys, n, i);
  }

  /** The next entity by priority, or -1 when the packet is done (full, too many misfits, none left). */
  next(): number {
    const view = this.view;
    if (view === undefined) return -1;
    if (this.heapSize === 0 || this._misfits >= this.maxMisfits || this._usedBits >= this._budgetBits) {
      this.view = undefined;
      this.offered = -1;
      return -1;
    }
    const { heap, keys } = this;
    const slot = heap[0];
    const last = --this.heapSize;
    if (last > 0) {
      heap[0] = heap[last];
      keys[0] = keys[last];
      siftDown(heap, keys, last, 0);
    }
    this.offered = slot;
    return view.ids[slot];
  }

  /**
   * Sends the entity last offered if `bits` fit the remaining budget: its priority resets to 0
   * and true is returned. Otherwise it counts as a misfit, keeps its priority, and false.
   */
  take(bits: number): boolean {
    const view = this.offeredView('take');
    if (!(bits >= 0 && bits !== Number.POSITIVE_INFINITY))
      throw new RangeError(`PrioritySelection.take: bits must be a finite number >= 0, got ${bits}`);
    const slot = this.offered;
    this.offered = -1;
    if (this._usedBits + bits > this._budgetBits) {
      this._misfits++;
      return false;
    }
    this._usedBits += bits;
    this._sent++;
    view.priority[slot] = 0;
    return true;
  }

  /** Passes over the entity last offered: no misfit, its priority kept. */
  skip(): void {
    this.offeredView('skip');
    this.offered = -1;
  }

  private offeredView(where: string): InterestView {
    if (this.view === undefined || this.offered < 0)
      throw new RangeError(`PrioritySelection.${where}: no entity is offered (call next() first)`);
    return this.view;
  }
}

function siftDown(heap: Int32Array, keys: Float32Array, size: number, index: number): void {
  const slot = heap[index];
  const key = keys[index];
  for (;;) {
    let child = 2 * index + 1;
    if (child >= size) break;
    let childKey = keys[child];
    if (child + 1 < size) {
      const right = keys[child + 1];
      if (right > childKey) {
        child++;
        childKey = right;
      }
    }
    if (childKey <= key) break;
    heap[index] = heap[child];
    keys[index] = childKey;
    index = child;
  }
  heap[index] = slot;
  keys[index] = key;
}
