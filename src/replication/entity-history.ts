import type { EntityLayout } from './entity-layout.js';
import type { LaneState } from './lane-state.js';

/**
 * One entity's last few distinct states, each stamped with the server tick it was quantized in:
 * the baselines deltas are taken against. A ring of `length` states made once when the entity
 * is created and reused (copies in place), so a tick allocates nothing but changed blobs.
 */
export class EntityHistory {
  private readonly states: LaneState[];
  private readonly ticks: Float64Array;
  /** Index of the newest state. */
  private head = -1;
  /** States held, at most `length`. */
  private count = 0;

  constructor(
    readonly layout: EntityLayout<unknown>,
    readonly length: number,
  ) {
    this.states = Array.from({ length }, () => layout.createState());
    this.ticks = new Float64Array(length);
  }

  /** Empties the ring (the entity was created anew). */
  clear(): void {
    this.head = -1;
    this.count = 0;
  }

  get size(): number {
    return this.count;
  }

  /** The newest state, or null before the first push. */
  get latest(): LaneState | null {
    return this.count === 0 ? null : this.states[this.head];
  }

  /** The tick of the newest state, or -1. */
  get latestTick(): number {
    return this.count === 0 ? -1 : this.ticks[this.head];
  }

  /** The tick of the oldest state held, or -1. */
  get oldestTick(): number {
    if (this.count === 0) return -1;
    return this.ticks[(this.head - this.count + 1 + this.length) % this.length];
  }

  /** The k-th newest state held (0 = newest, k < size): for interpolation, which needs both neighbours. */
  stateAt(k: number): LaneState {
    return this.states[(this.head - k + this.length) % this.length];
  }

  /** The tick of stateAt(k). */
  tickAt(k: number): number {
    return this.ticks[(this.head - k + this.length) % this.length];
  }

  /** The state to fill for `tick` (a new slot, or the newest when it is of the same tick). */
  slotFor(tick: number): LaneState {
    if (this.count > 0 && this.ticks[this.head] === tick) return this.states[this.head];
    this.head = (this.head + 1) % this.length;
    if (this.count < this.length) this.count++;
    this.ticks[this.head] = tick;
    return this.states[this.head];
  }

  /**
   * The entity's state as of `tick` (the newest state stamped at or before it), or null when the
   * ring no longer reaches back that far.
   */
  at(tick: number): LaneState | null {
    // Newest first, without a modulo per step: the servers' shared deltas call this per delta.
    const last = this.length - 1;
    for (let k = 0, i = this.head; k < this.count; k++, i = i === 0 ? last : i - 1) {
      if (this.ticks[i] <= tick) return this.states[i];
    }
    return null;
  }

  /** The state stamped exactly `tick`, or null (a client's baseline must be one it received). */
  exact(tick: number): LaneState | null {
    for (let k = 0, i = this.head; k < this.count; k++, i = (i - 1 + this.length) % this.length) {
      if (this.ticks[i] === tick) return this.states[i];
    }
    return null;
  }
}
