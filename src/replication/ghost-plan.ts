import type { GhostSender } from './ghost-sender.js';
import { IdList } from './id-list.js';

/**
 * What `select` chose for `writeSelected`. One plan serves every sender: a connection calls the
 * two back to back, and `select` starts a new plan.
 */
export class GhostPlan {
  readonly destroys = new IdList(16);
  readonly creates = new IdList(16);
  /** Per planned create (same index): its slot in the sender's view, for the view's ghostSlots. */
  readonly createSlots = new IdList(16);
  readonly updates = new IdList(16);
  /** The sender the plan is for. */
  owner: GhostSender | null = null;
  /**
   * Per id: the ghost table slot of a planned update (valid for ids in `updates` only); 16 bits,
   * as a table has at most 65,536 slots.
   */
  readonly updateSlots: Uint16Array;
  /** A bit per id, all clear between calls: `sortUpdates` sorts through it. */
  private readonly marks: Uint32Array;
  /** Per view slot, the sender's verdict on the member (scratch for its select). */
  private verdictScratch = new Uint8Array(64);
  /** Per view slot, a priority (scratch for a sender's select). */
  private keyScratch = new Float32Array(64);

  constructor(capacity: number) {
    this.updateSlots = new Uint16Array(capacity);
    this.marks = new Uint32Array(Math.ceil(capacity / 32));
  }

  clear(owner: GhostSender): void {
    this.destroys.clear();
    this.creates.clear();
    this.createSlots.clear();
    this.updates.clear();
    this.owner = owner;
  }

  /** A scratch array of at least `count` verdicts (contents undefined). */
  verdicts(count: number): Uint8Array {
    if (this.verdictScratch.length < count) this.verdictScratch = new Uint8Array(count * 2);
    return this.verdictScratch;
  }

  /** A scratch array of at least `count` priorities (contents undefined). */
  keys(count: number): Float32Array {
    if (this.keyScratch.length < count) this.keyScratch = new Float32Array(count * 2);
    return this.keyScratch;
  }

  /** Plans an update of `id`, whose ghost is in table slot `slot`. */
  addUpdate(id: number, slot: number): void {
    this.updates.push(id);
    this.updateSlots[id] = slot;
  }

  /**
   * Sorts the updates by id (the wire's order). Through a bitset when the ids are dense enough
   * that scanning its words costs less than comparing (a packet's updates span the view's ids:
   * W4 takes 74 ids among 10,000); else by comparisons.
   */
  sortUpdates(): void {
    const updates = this.updates;
    const n = updates.length;
    if (n < 2) return;
    const items = updates.items;
    let low = items[0];
    let high = low;
    for (let i = 1; i < n; i++) {
      const id = items[i];
      if (id < low) low = id;
      else if (id > high) high = id;
    }
    const from = low >>> 5;
    const to = high >>> 5;
    if (to - from > n * 8) {
      updates.sort();
      return;
    }
    const marks = this.marks;
    for (let i = 0; i < n; i++) marks[items[i] >>> 5] |= 1 << (items[i] & 31);
    let k = 0;
    for (let w = from; w <= to; w++) {
      let bits = marks[w];
      if (bits === 0) continue;
      marks[w] = 0;
      const base = w << 5;
      while (bits !== 0) {
        const lowest = bits & -bits;
        items[k++] = base + 31 - Math.clz32(lowest);
        bits ^= lowest;
      }
    }
  }
}
