import type { LaneState } from './lane-state.js';
import type { EntityLayout } from './layout.js';
import { MAX_SCALAR_LANES } from './plan.js';

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

  /** Makes the set of `state` against `base` the newest (move to front). */
  record(layout: EntityLayout<unknown>, state: LaneState, base: LaneState): void {
    if (state.lanes.length > this.maxLanes)
      throw new RangeError(
        `PreviousChanges: a layout of ${state.lanes.length} lanes, more than ${this.maxLanes}`,
      );
    const form = this.match(layout, state, base);
    if (form === 1) return;
    const newest = this.first;
    if (form === 2) {
      this.first = this.second;
    } else {
      const set = this.scratch;
      for (let i = 0; i < state.lanes.length; i++) set[i] = state.lanes[i] !== base.lanes[i] ? 1 : 0;
      this.scratch = this.second;
      this.first = set;
    }
    this.second = newest;
    this.hasSecond = this.layout === layout;
    this.layout = layout;
  }
}

function sameSet(set: Uint8Array, state: LaneState, base: LaneState): boolean {
  const lanes = state.lanes;
  for (let i = 0; i < lanes.length; i++) if ((lanes[i] !== base.lanes[i] ? 1 : 0) !== set[i]) return false;
  return true;
}
