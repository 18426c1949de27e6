import type { Interpolator } from './interpolation.js';
import { overlaps } from './lag-boxes.js';
import { type FlatStates, flatStates } from './lag-states.js';

/** States a ring starts with: an entity recorded only when it changes (recordChange) rarely needs more. */
const FIRST_RING = 4;

/**
 * A ring record's numbers: its tick, its broad-phase box (six numbers), 1 where it was recorded as
 * a change (the state before it held until the tick before), then the state's own numbers when the
 * schema is flat (lag-states.ts).
 */
const BOX = 1;
const CHANGE = 7;
const STATE = 8;

/** What `sample` found for an entity at a tick. */
const NOT_RECORDED = 0;
const MISSED = 1;
const BLENDED = 2;

/** Per schema, the two states a flat ring's blend reads (see put). */
const blendInputs = new WeakMap<object, [unknown, unknown]>();

/**
 * LagCompensation's storage: per entity id, a ring of its recorded states, flat. Each ring is one
 * Float64Array of `stride` numbers per state (tick, box, change, and the state itself when its
 * schema is flat), the newest at `heads[id]`, `counts[id]` of them held. A ring grows (doubling,
 * up to historyTicks + 1) only while its oldest state may still be rewound to: an entity at rest
 * keeps a few states, not a second's worth.
 */
export class LagRings<S> {
  private readonly rings: (Float64Array | null)[];
  /**
   * Each entity's ring of state objects beside its numbers, when the schema is not flat
   * (undefined: a slot not filled yet).
   */
  private readonly states: (S[] | null)[];
  /** The states as numbers in the rings (null: kept as objects, in `states`). */
  private readonly flat: FlatStates<S> | null;
  /** Numbers per ring record. */
  private readonly stride: number;
  /** A flat state being recorded, checked before it goes to the ring. */
  private readonly stateScratch: Float64Array;
  /** The two states a flat ring's blend reads, rebuilt in place. */
  private fromScratch = undefined as S;
  private toScratch = undefined as S;
  private readonly heads: Int32Array;
  private readonly counts: Int32Array;
  /** Each entity's rewound state, rebuilt in place (made by its first blend). */
  private readonly blends: S[];
  /** The state the last `sample` blended. */
  private blended = undefined as S;
  /**
   * The (fractional) tick `testAll` rewinds to: passed through a Float64Array, since a double
   * passed to a call that is not inlined is boxed (16 B per entity).
   */
  readonly at = new Float64Array(1);
  /** What the last `testAll` counted: entities tested, and those the broad phase skipped. */
  tested = 0;
  skipped = 0;

  constructor(
    capacity: number,
    private readonly interpolator: Interpolator<S>,
    private readonly historyTicks: number,
  ) {
    // Generated code as the interpolator's: with its closures (no codegen), states stay objects.
    this.flat = interpolator.compiled ? flatStates<S>(interpolator.schema) : null;
    this.stride = STATE + (this.flat?.numbers ?? 0);
    this.stateScratch = new Float64Array(this.flat?.numbers ?? 0);
    this.rings = new Array(capacity).fill(null);
    this.states = new Array(capacity).fill(null);
    this.heads = new Int32Array(capacity);
    this.counts = new Int32Array(capacity);
    this.blends = new Array(capacity).fill(undefined);
  }

  /** Whether `id` holds a state. */
  held(id: number): boolean {
    return this.counts[id] > 0;
  }

  /** The tick of `id`'s newest state (call only when held). */
  newestTick(id: number): number {
    return this.rings[id]![this.heads[id] * this.stride];
  }

  /** Forgets `id`'s states (its ring is kept for its next life). */
  clear(id: number): void {
    this.counts[id] = 0;
  }

  /**
   * Puts `spare` (boxed by `box`) in `id`'s ring at `tick`, `newest` being the present: as numbers
   * when the schema is flat (a state of the wrong shape throws first, changing nothing), else
   * swapped in. Returns the next spare: the same object, or the slot's old one (undefined when the
   * slot had none), so nothing is allocated once the ring's slots are filled.
   */
  put(id: number, tick: number, change: 0 | 1, box: Float64Array, spare: S, newest: number): S {
    const flat = this.flat;
    const numbers = this.stateScratch;
    if (flat !== null) {
      flat.write(spare, numbers, 0);
      if (this.fromScratch === undefined) {
        // The blend's inputs, of the interpolator's own shape (its floats unboxed), shared by
        // every LagCompensation of the schema: with a pair each, a second one's blends boxed
        // their floats (32 B per entity tested, bench/lag-compensation.ts). Rewinds re-read them
        // for each entity, so one nested in another's test is harmless.
        let pair = blendInputs.get(this.interpolator.schema);
        if (pair === undefined) {
          const make = () => this.interpolator.interpolate(spare, spare, 0, undefined as S);
          pair = [make(), make()];
          blendInputs.set(this.interpolator.schema, pair);
        }
        this.fromScratch = pair[0] as S;
        this.toScratch = pair[1] as S;
      }
    }
    const stride = this.stride;
    let ring = this.rings[id];
    if (ring === null) ring = this.resize(id, Math.min(FIRST_RING, this.historyTicks + 1));
    let head = this.heads[id];
    let count = this.counts[id];
    if (count === 0 || tick !== ring[head * stride]) {
      let length = ring.length / stride;
      if (count === length && length < this.historyTicks + 1) {
        // Full: the oldest state goes only if the one after it covers every tick still claimable.
        const second = (head + 2) % length;
        if (ring[second * stride] > Math.max(tick, newest) - this.historyTicks) {
          ring = this.resize(id, Math.min(2 * length, this.historyTicks + 1));
          head = this.heads[id];
          length = ring.length / stride;
        }
      }
      head = head + 1 === length ? 0 : head + 1;
      if (count < length) this.counts[id] = ++count;
      this.heads[id] = head;
    }
    const at = head * stride;
    ring[at] = tick;
    ring[at + BOX] = box[0];
    ring[at + BOX + 1] = box[1];
    ring[at + BOX + 2] = box[2];
    ring[at + BOX + 3] = box[3];
    ring[at + BOX + 4] = box[4];
    ring[at + BOX + 5] = box[5];
    ring[at + CHANGE] = change;
    if (flat !== null) {
      for (let i = 0; i < numbers.length; i++) ring[at + STATE + i] = numbers[i];
      return spare;
    }
    const ringStates = this.states[id]!;
    const old = ringStates[head];
    ringStates[head] = spare;
    return old;
  }

  /**
   * Runs `test(id, state)` for the first `count` ids of `ids` whose box swept over the two states
   * blended at tick `this.at[0]` overlaps `volume`; counts them in `tested` and `skipped`.
   */
  testAll(
    ids: Int32Array,
    count: number,
    volume: ArrayLike<number>,
    test: (id: number, state: S) => void,
  ): void {
    let tested = 0;
    let skipped = 0;
    for (let i = 0; i < count; i++) {
      const id = ids[i];
      const found = this.sample(id, volume);
      if (found === MISSED) skipped++;
      else if (found === BLENDED) {
        tested++;
        test(id, this.blended);
      }
    }
    this.tested = tested;
    this.skipped = skipped;
  }

  /**
   * `id` as shown at (fractional) tick `this.at[0]`: NOT_RECORDED before its first state, MISSED when the
   * box swept over the two states blended misses `volume`, else BLENDED, the state in `blended`.
   */
  private sample(id: number, volume: ArrayLike<number>): number {
    const at = this.at[0];
    const ring = this.rings[id]!;
    const stride = this.stride;
    const length = ring.length / stride;
    const head = this.heads[id];
    const count = this.counts[id];
    // n: how many states back the newest stamped at or before `at` lies (ticks fall as n grows).
    let low = 0;
    let high = count;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (ring[((head - mid + length) % length) * stride] <= at) high = mid;
      else low = mid + 1;
    }
    if (low === count) return NOT_RECORDED;
    // k: that state; j: the one after it (or k itself at the newest).
    const k = (head - low + length) % length;
    let j = low === 0 ? k : k === length - 1 ? 0 : k + 1;
    let t0 = ring[k * stride];
    if (j !== k && ring[j * stride + CHANGE] === 1) {
      // A change: k held until the tick before j's, then blended into it over one tick.
      const held = ring[j * stride] - 1;
      if (at <= held) j = k;
      else if (held > t0) t0 = held;
    }
    if (!overlaps(ring, k * stride + BOX, j * stride + BOX, volume)) return MISSED;
    const f = j === k ? 0 : (at - t0) / (ring[j * stride] - t0);
    let from: S;
    let to: S;
    const flat = this.flat;
    if (flat !== null) {
      from = this.fromScratch;
      flat.read(ring, k * stride + STATE, from);
      to = from;
      if (j !== k) {
        to = this.toScratch;
        flat.read(ring, j * stride + STATE, to);
      }
    } else {
      const ringStates = this.states[id]!;
      from = ringStates[k];
      to = ringStates[j];
    }
    const blended = this.interpolator.interpolate(from, to, f, this.blends[id]);
    this.blends[id] = blended;
    this.blended = blended;
    return BLENDED;
  }

  /**
   * Gives `id` a ring of `length` states (not fewer than it holds), oldest first, newest at
   * count - 1; returns its numbers. New object slots hold none.
   */
  private resize(id: number, length: number): Float64Array {
    const count = this.counts[id];
    const stride = this.stride;
    const ring = new Float64Array(length * stride);
    const ringStates: S[] | null = this.flat === null ? new Array(length).fill(undefined) : null;
    const from = this.rings[id];
    if (from !== null) {
      const old = from.length / stride;
      const oldStates = this.states[id];
      for (let n = 0; n < count; n++) {
        const slot = (this.heads[id] - count + 1 + n + old) % old;
        if (ringStates !== null) ringStates[n] = oldStates![slot];
        for (let i = 0; i < stride; i++) ring[n * stride + i] = from[slot * stride + i];
      }
    }
    this.rings[id] = ring;
    this.states[id] = ringStates;
    this.heads[id] = count - 1;
    return ring;
  }
}
