import type { EntityLayout } from './entity-layout.js';
import type { LaneState } from './lane-state.js';

/** Where a history's record keeps the index of its newest state, the states held, their ticks. */
export const HISTORY_HEAD = 0;
export const HISTORY_COUNT = 1;
export const HISTORY_TICKS = 2;

/** Words of a history's record: head, count, a tick per state, then every state's lanes. */
export const historyRecordWords = (length: number, lanes: number): number =>
  HISTORY_TICKS + length + length * lanes;

/**
 * Pushes the lanes at `record[from..from + lanes)` onto the flat ring at `offset` (a record of
 * historyRecordWords(length, lanes) words, without blobs) as the state of `tick`, unless they equal
 * its newest state: what EntityHistory's `latest`, `slotFor` and a copy do, on the record alone
 * (the server world records every changed entity each tick, and the objects cost more than the
 * lanes). Returns the tick of the oldest state held after the push, or -1 when nothing changed.
 */
export function pushLanes(
  record: Uint32Array,
  offset: number,
  length: number,
  lanes: number,
  from: number,
  tick: number,
): number {
  const ticks = offset + HISTORY_TICKS;
  const first = ticks + length;
  const count = record[offset + HISTORY_COUNT];
  let head = record[offset + HISTORY_HEAD];
  let at = first + head * lanes;
  if (count > 0) {
    let same = true;
    for (let i = 0; i < lanes; i++) {
      if (record[at + i] === record[from + i]) continue;
      same = false;
      break;
    }
    if (same) return -1;
  }
  let held = count;
  if (count === 0 || record[ticks + head] !== tick) {
    head = head === length - 1 ? 0 : head + 1;
    record[offset + HISTORY_HEAD] = head;
    if (count < length) {
      held = count + 1;
      record[offset + HISTORY_COUNT] = held;
    }
    record[ticks + head] = tick;
    at = first + head * lanes;
  }
  for (let i = 0; i < lanes; i++) record[at + i] = record[from + i];
  const oldest = head - held + 1;
  return record[ticks + (oldest < 0 ? oldest + length : oldest)];
}

/**
 * One entity's last few distinct states, each stamped with the server tick it was quantized in:
 * the baselines deltas are taken against. A ring of `length` slots whose state objects are made
 * the first time each is filled and then reused (copies in place), so a tick allocates nothing
 * but changed blobs, and an entity at rest holds one or two state objects, not `length`.
 *
 * Everything but the blobs lives in one flat record of Uint32 (see historyRecordWords): the
 * states' lanes are views into it. A server world hands out records from one store per entity
 * type (`store`, `offset`), so its shared deltas read the ring without touching the objects.
 */
export class EntityHistory {
  /** Each slot's state object, made the first time the slot is filled (an entity at rest uses one or two). */
  private readonly states: (LaneState | undefined)[];
  /** @internal The record: head, count, ticks, lanes (from `offset`). */
  readonly record: Uint32Array;
  /** @internal Where the record starts in `record`. */
  readonly offset: number;
  private readonly ticks: number;
  /** @internal Where slot 0's lanes start in `record` (slot i's: lanes0 + i × the layout's lanes). */
  readonly lanes0: number;

  /**
   * `store`, `offset`: where to keep the record (historyRecordWords(length, lanes) words from
   * `offset`); by default a record of its own.
   */
  constructor(
    readonly layout: EntityLayout<unknown>,
    readonly length: number,
    store?: Uint32Array,
    offset = 0,
  ) {
    const lanes = layout.lanes.length;
    const words = historyRecordWords(length, lanes);
    if (store !== undefined && !(offset >= 0 && offset + words <= store.length))
      throw new RangeError(`EntityHistory: a record of ${words} words does not fit the store at ${offset}`);
    this.record = store ?? new Uint32Array(words);
    this.offset = offset;
    this.ticks = offset + HISTORY_TICKS;
    this.lanes0 = this.ticks + length;
    this.states = new Array<LaneState | undefined>(length).fill(undefined);
    this.clear();
  }

  /** Slot `index`'s state (a view of its lanes in the record and its blobs), made on first use. */
  private state(index: number): LaneState {
    const made = this.states[index];
    if (made !== undefined) return made;
    const lanes = this.layout.lanes.length;
    const first = this.ticks + this.length + index * lanes;
    const state = {
      lanes: this.record.subarray(first, first + lanes),
      blobs: this.layout.createState().blobs,
    };
    this.states[index] = state;
    return state;
  }

  /** Empties the ring (the entity was created anew). */
  clear(): void {
    this.record[this.offset + HISTORY_HEAD] = this.length - 1;
    this.record[this.offset + HISTORY_COUNT] = 0;
  }

  get size(): number {
    return this.record[this.offset + HISTORY_COUNT];
  }

  private get head(): number {
    return this.record[this.offset + HISTORY_HEAD];
  }

  /** The newest state, or null before the first push. */
  get latest(): LaneState | null {
    return this.size === 0 ? null : this.state(this.head);
  }

  /** The tick of the newest state, or -1. */
  get latestTick(): number {
    return this.size === 0 ? -1 : this.record[this.ticks + this.head];
  }

  /** The tick of the oldest state held, or -1. */
  get oldestTick(): number {
    const count = this.size;
    if (count === 0) return -1;
    return this.record[this.ticks + ((this.head - count + 1 + this.length) % this.length)];
  }

  /** The k-th newest state held (0 = newest, k < size): for interpolation, which needs both neighbours. */
  stateAt(k: number): LaneState {
    return this.state((this.head - k + this.length) % this.length);
  }

  /** The tick of stateAt(k). */
  tickAt(k: number): number {
    return this.record[this.ticks + ((this.head - k + this.length) % this.length)];
  }

  /** The state to fill for `tick` (a new slot, or the newest when it is of the same tick). */
  slotFor(tick: number): LaneState {
    return this.state(this.slotIndexFor(tick));
  }

  /**
   * @internal slotFor without the state object: the slot's index (its lanes at lanes0 + index ×
   * lanes in `record`), for a reader that copies lanes straight into the record.
   */
  slotIndexFor(tick: number): number {
    const record = this.record;
    const count = record[this.offset + HISTORY_COUNT];
    let head = record[this.offset + HISTORY_HEAD];
    if (count > 0 && record[this.ticks + head] === tick) return head;
    head = (head + 1) % this.length;
    record[this.offset + HISTORY_HEAD] = head;
    if (count < this.length) record[this.offset + HISTORY_COUNT] = count + 1;
    record[this.ticks + head] = tick;
    return head;
  }

  /**
   * The entity's state as of `tick` (the newest state stamped at or before it), or null when the
   * ring no longer reaches back that far.
   */
  at(tick: number): LaneState | null {
    // Newest first, without a modulo per step.
    const record = this.record;
    const count = record[this.offset + HISTORY_COUNT];
    const last = this.length - 1;
    for (let k = 0, i = record[this.offset + HISTORY_HEAD]; k < count; k++, i = i === 0 ? last : i - 1) {
      if (record[this.ticks + i] <= tick) return this.state(i);
    }
    return null;
  }

  /** The state stamped exactly `tick`, or null (a client's baseline must be one it received). */
  exact(tick: number): LaneState | null {
    const record = this.record;
    const count = record[this.offset + HISTORY_COUNT];
    for (
      let k = 0, i = record[this.offset + HISTORY_HEAD];
      k < count;
      k++, i = (i - 1 + this.length) % this.length
    ) {
      if (record[this.ticks + i] === tick) return this.state(i);
    }
    return null;
  }
}
