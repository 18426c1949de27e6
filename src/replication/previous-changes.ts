import type { EntityLayout } from './entity-layout.js';
import type { LaneState } from './lane-state.js';
import { MAX_SCALAR_LANES } from './plan.js';

/** Layouts with at most this many scalar lanes also keep their sets as bit masks (bit i: lane i changed). */
export const MASK_LANES = 31;

/** The changed lanes of `state` against `base` as a mask (bit i: lane i), or -1 past MASK_LANES lanes. */
export function changedMask(state: LaneState, base: LaneState): number {
  const lanes = state.lanes;
  if (lanes.length > MASK_LANES) return -1;
  let mask = 0;
  for (let i = 0; i < lanes.length; i++) if (lanes[i] !== base.lanes[i]) mask |= 1 << i;
  return mask;
}

/** The most bits of a repeat prefix (`00`: neither set held): what a budget reserves before the order is known. */
export const MAX_REPEAT_PREFIX_BITS = 2;

/**
 * The last two distinct changed-lane sets of a run's deltas (the newest first), and their layout:
 * what the repeat bits refer to. Writer and reader each keep one per run and `reset` it when a run
 * starts; a delta of another layout starts the sets over.
 */
export class PreviousChanges {
  /** The layout of the sets held; null before the first delta of a run. */
  layout: EntityLayout<unknown> | null = null;
  /** Per lane, 1 when it changed: the newest set, the one before it (when `hasSecond`), scratch. */
  first: Uint8Array;
  second: Uint8Array;
  hasSecond = false;
  /** The same sets as masks (see changedMask; -1 past MASK_LANES lanes), so senders compare one number. */
  private firstMask = -1;
  private secondMask = -1;
  private scratch: Uint8Array;

  /** `maxLanes`: the most scalar lanes of the layouts this run will see (a sender has one per client). */
  constructor(readonly maxLanes = MAX_SCALAR_LANES) {
    if (!Number.isInteger(maxLanes) || maxLanes < 0 || maxLanes > MAX_SCALAR_LANES)
      throw new RangeError(
        `PreviousChanges: maxLanes must be an integer in [0, ${MAX_SCALAR_LANES}], got ${maxLanes}`,
      );
    this.first = new Uint8Array(maxLanes);
    this.second = new Uint8Array(maxLanes);
    this.scratch = new Uint8Array(maxLanes);
  }

  reset(): void {
    this.layout = null;
    this.hasSecond = false;
  }

  /** Which held set `state` against `base` changes: 1 the newest, 2 the one before, 0 neither. */
  match(layout: EntityLayout<unknown>, state: LaneState, base: LaneState): number {
    if (this.layout !== layout) return 0;
    if (sameSet(this.first, state, base)) return 1;
    return this.hasSecond && sameSet(this.second, state, base) ? 2 : 0;
  }

  /** Bits of the repeat prefix for a delta matching set `form` (see `match`): `1`, `01`, `00`. */
  prefixBits(layout: EntityLayout<unknown>, form: number): number {
    if (this.layout !== layout) return 0;
    return form === 1 || !this.hasSecond ? 1 : 2;
  }

  /**
   * `match` for a set given as its mask (changedMask of a layout of at most MASK_LANES lanes):
   * one compare per held set instead of one per lane.
   */
  matchMask(layout: EntityLayout<unknown>, mask: number): number {
    if (this.layout !== layout) return 0;
    if (mask === this.firstMask) return 1;
    return this.hasSecond && mask === this.secondMask ? 2 : 0;
  }

  /** Makes the set of `state` against `base` the newest (move to front). */
  record(layout: EntityLayout<unknown>, state: LaneState, base: LaneState): void {
    this.checkLanes(state.lanes.length);
    const form = this.match(layout, state, base);
    if (form === 1) return;
    if (form === 2) this.promoteSecond();
    else {
      const set = this.scratch;
      for (let i = 0; i < state.lanes.length; i++) set[i] = state.lanes[i] !== base.lanes[i] ? 1 : 0;
      this.pushFirst(set, changedMask(state, base));
    }
    this.hasSecond = this.layout === layout;
    this.layout = layout;
  }

  /** `record` for a set given as its mask (a layout of at most MASK_LANES lanes). */
  recordMask(layout: EntityLayout<unknown>, mask: number): void {
    const count = layout.lanes.length;
    this.checkLanes(count);
    if (count > MASK_LANES || mask < 0)
      throw new RangeError(`PreviousChanges.recordMask: needs a mask of at most ${MASK_LANES} lanes`);
    const form = this.matchMask(layout, mask);
    if (form === 1) return;
    if (form === 2) this.promoteSecond();
    else {
      const set = this.scratch;
      for (let i = 0; i < count; i++) set[i] = (mask >>> i) & 1;
      this.pushFirst(set, mask);
    }
    this.hasSecond = this.layout === layout;
    this.layout = layout;
  }

  private checkLanes(count: number): void {
    if (count > this.maxLanes)
      throw new RangeError(`PreviousChanges: a layout of ${count} lanes, more than ${this.maxLanes}`);
  }

  /** The set before the newest becomes the newest, and the newest the one before. */
  private promoteSecond(): void {
    const set = this.first;
    const mask = this.firstMask;
    this.first = this.second;
    this.firstMask = this.secondMask;
    this.second = set;
    this.secondMask = mask;
  }

  /** A new newest set (`set` is the scratch array); the newest becomes the one before. */
  private pushFirst(set: Uint8Array, mask: number): void {
    this.scratch = this.second;
    this.second = this.first;
    this.secondMask = this.firstMask;
    this.first = set;
    this.firstMask = mask;
  }
}

function sameSet(set: Uint8Array, state: LaneState, base: LaneState): boolean {
  const lanes = state.lanes;
  for (let i = 0; i < lanes.length; i++) if ((lanes[i] !== base.lanes[i] ? 1 : 0) !== set[i]) return false;
  return true;
}
