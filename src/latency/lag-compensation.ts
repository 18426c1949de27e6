import type { EntityLayout } from '../replication/entity-layout.js';
import type { LaneState } from '../replication/lane-state.js';
import type { Entity, ServerWorld } from '../replication/server-world.js';
import type { Interpolator } from './interpolation.js';
import { checkVolume, overlaps } from './lag-boxes.js';
import type {
  BeyondClamp,
  LagCompensationOptions,
  LagCompensationStats,
  RewindClaim,
  RewindOutcome,
} from './lag-compensation-options.js';
import { type FlatStates, flatStates } from './lag-states.js';

export type {
  BeyondClamp,
  LagCompensationOptions,
  LagCompensationStats,
  RewindClaim,
  RewindOutcome,
} from './lag-compensation-options.js';

/**
 * Server-side lag compensation: a bounded history of chosen entities' states (positions, hit
 * volumes) and `rewind`, which runs a hit test against the states a client was displaying when it
 * fired: the same ticks, the same fraction, blended by the same interpolator the client's
 * GhostSampler uses. Only entities whose broad-phase box (swept over the two states blended)
 * overlaps the test's volume are blended and tested.
 */

const STAT_COUNT = 6;
const [REWINDS, TOO_OLD, TOO_NEW, REFUSED, TESTED, SKIPPED] = [0, 1, 2, 3, 4, 5];

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

/** Per schema, the two states a flat ring's blend reads (see commit). */
const blendInputs = new WeakMap<object, [unknown, unknown]>();

interface MutableOutcome {
  claim: RewindClaim;
  tested: boolean;
  tick: number;
  entities: number;
  skipped: number;
}

export class LagCompensation<S> {
  readonly interpolator: Interpolator<S>;
  readonly tickRate: number;
  readonly capacity: number;
  readonly maxClients: number;
  /** How far back a claim may reach from the newest tick recorded, in ticks. */
  readonly historyTicks: number;
  readonly beyondClamp: BeyondClamp;
  private readonly bounds: (state: S, out: Float64Array) => void;
  private readonly layout: EntityLayout<S> | undefined;
  private readonly scratchLanes: LaneState | undefined;
  private readonly box = new Float64Array(6);
  /**
   * The state being recorded, swapped into its ring slot once checked. Undefined until the first
   * record: the interpolator (or the layout) makes it, so its floats are stored unboxed.
   */
  private spare = undefined as S;
  /**
   * Each entity's ring, flat: `stride` numbers per state (tick, box, change, state), the newest at
   * `heads[id]`, `counts[id]` of them held. Grown (doubling, up to historyTicks + 1) only while its
   * oldest state may still be rewound to: an entity at rest keeps a few states, not a second's worth.
   */
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
  /** The two states a flat ring's blend reads, rebuilt in place (made from the first state recorded). */
  private fromScratch = undefined as S;
  private toScratch = undefined as S;
  private readonly heads: Int32Array;
  private readonly counts: Int32Array;
  /** Each entity's rewound state handed to the test, rebuilt in place (made by the first blend). */
  private readonly blends: S[];
  /** Ids recorded and not removed, and each one's index in it (-1: absent). */
  private readonly active: Int32Array;
  private activeCount = 0;
  private readonly activeIndex: Int32Array;
  private newest = -1;
  private readonly counters: Float64Array;
  private readonly outcome: MutableOutcome = {
    claim: 'ok',
    tested: false,
    tick: Number.NaN,
    entities: 0,
    skipped: 0,
  };

  constructor(options: LagCompensationOptions<S>) {
    const where = 'LagCompensation';
    const { interpolator, bounds, tickRate, capacity } = options;
    if (typeof interpolator?.interpolate !== 'function')
      throw new TypeError(`${where}: interpolator must be a compileInterpolator result`);
    if (typeof bounds !== 'function') throw new TypeError(`${where}: bounds must be a function`);
    if (!(tickRate > 0 && Number.isFinite(tickRate)))
      throw new RangeError(`${where}: tickRate must be a finite number > 0, got ${tickRate}`);
    if (!Number.isInteger(capacity) || capacity < 1 || capacity > 65536)
      throw new RangeError(`${where}: capacity must be an integer in [1, 65536], got ${capacity}`);
    const seconds = options.historySeconds ?? 1;
    if (!(seconds > 0 && seconds <= 60))
      throw new RangeError(`${where}: historySeconds must be in (0, 60], got ${seconds}`);
    const maxClients = options.maxClients ?? 256;
    if (!Number.isInteger(maxClients) || maxClients < 1 || maxClients > 65536)
      throw new RangeError(`${where}: maxClients must be an integer in [1, 65536], got ${maxClients}`);
    const beyond = options.beyondClamp ?? 'present';
    if (beyond !== 'present' && beyond !== 'oldest' && beyond !== 'refuse')
      throw new RangeError(`${where}: beyondClamp must be 'present', 'oldest' or 'refuse', got ${beyond}`);
    if (options.layout !== undefined && options.layout.schema !== interpolator.schema)
      throw new TypeError(`${where}: the layout's schema is not the interpolator's`);
    this.interpolator = interpolator;
    this.bounds = bounds;
    this.tickRate = tickRate;
    this.capacity = capacity;
    this.maxClients = maxClients;
    this.historyTicks = Math.max(1, Math.ceil(seconds * tickRate - 1e-9));
    this.beyondClamp = beyond;
    this.layout = options.layout;
    this.scratchLanes = options.layout?.createState();
    // Generated code as the interpolator's: with its closures (no codegen), states stay objects.
    this.flat = interpolator.compiled ? flatStates<S>(interpolator.schema) : null;
    this.stride = STATE + (this.flat?.numbers ?? 0);
    this.stateScratch = new Float64Array(this.flat?.numbers ?? 0);
    this.rings = new Array(capacity).fill(null);
    this.states = new Array(capacity).fill(null);
    this.heads = new Int32Array(capacity);
    this.counts = new Int32Array(capacity);
    this.blends = new Array(capacity).fill(undefined);
    this.active = new Int32Array(capacity);
    this.activeIndex = new Int32Array(capacity).fill(-1);
    this.counters = new Float64Array(maxClients * STAT_COUNT);
  }

  /** The newest tick recorded (-1 before any): the present a claim is judged against. */
  get presentTick(): number {
    return this.newest;
  }

  /** The oldest tick a claim may name without being clamped. */
  get oldestTick(): number {
    return this.newest - this.historyTicks;
  }

  /** Entities tracked (recorded and not removed). */
  get size(): number {
    return this.activeCount;
  }

  /**
   * Records entity `id`'s state at server tick `tick` (an integer, not below its previous one; the
   * same tick again replaces it). Record after `world.tick()`, with the tick it stamped. A state
   * holds until the next one: an entity that did not change may be left out. Copied in place into
   * a ring of at most `historyTicks + 1` states per entity (made on its first record, grown while
   * its oldest state is still within the history).
   */
  record(tick: number, id: number, state: S): void {
    this.checkSlot('record', tick, id);
    this.take(state);
    this.commit(tick, id, 0);
  }

  /**
   * Records entity `id`'s state as changed at `tick`: unlike `record`, the state before it holds
   * through `tick - 1`, so a rewind between the two sees it resting there, then blending over the
   * last tick, as if it had been recorded every tick. Recording only what changed (and `advance`
   * each tick) rewinds exactly as recording every entity every tick, at a fraction of the cost.
   */
  recordChange(tick: number, id: number, state: S): void {
    this.checkSlot('recordChange', tick, id);
    this.take(state);
    this.commit(tick, id, 1);
  }

  /**
   * Makes `tick` the present (the newest tick recorded) though no entity was recorded at it: with
   * `recordChange`, a tick where nothing changed. Ticks never go back: an older one is ignored.
   */
  advance(tick: number): void {
    if (!Number.isInteger(tick) || tick < 0)
      throw new RangeError(`LagCompensation.advance: tick must be an integer >= 0, got ${tick}`);
    if (tick > this.newest) this.newest = tick;
  }

  /**
   * Records a world entity as replicated at the world's present tick: its quantized state, the
   * lanes clients receive, read from the world's history (no value built). Call after `world.tick()`,
   * every tick: a state already recorded is not recorded again (the present advances), and one the
   * world stamped this tick is recorded as a change, so an entity at rest keeps one state.
   */
  recordFrom(world: ServerWorld, entity: Entity<S>): void {
    const layout = entity.type.layout;
    if (layout.schema !== this.interpolator.schema)
      throw new TypeError("LagCompensation.recordFrom: the entity's schema is not the interpolator's");
    const id = entity.id;
    const ticked =
      world.isAlive(entity) &&
      world.tickedGeneration[id] === entity.generation &&
      world.tickedType[id] >= 0 &&
      world.latestTicks[id] >= 0;
    if (!ticked)
      throw new RangeError(
        `LagCompensation.recordFrom: ${entity.type.name} ${id} is not live or not ticked yet`,
      );
    const tick = world.serverTick;
    this.checkSlot('recordFrom', tick, id);
    const changed = world.latestTicks[id];
    const held = this.counts[id] > 0;
    // The world's newest state of it is the one recorded last: it held, nothing to record.
    if (held && changed <= this.rings[id]![this.heads[id] * this.stride]) {
      this.advance(tick);
      return;
    }
    this.spare = layout.dequantize(world.histories[id]!.latest!, this.spare);
    // Stamped this tick: the state before held until the tick before (as recordChange).
    this.commit(tick, id, changed === tick && held ? 1 : 0);
  }

  /** Forgets an entity (destroyed, or no longer to be hit): it is never rewound again. */
  remove(id: number): void {
    this.checkId('remove', id);
    const i = this.activeIndex[id];
    if (i < 0) return;
    const last = this.active[--this.activeCount];
    this.active[i] = last;
    this.activeIndex[last] = i;
    this.activeIndex[id] = -1;
    this.counts[id] = 0;
  }

  /**
   * Runs `test(id, state)` for each tracked entity as client `client` displayed it at `tick +
   * fraction` (pass the floor of its view tick and the rest), among those whose box, swept over
   * the two states blended, overlaps `volume` ([minX, minY, minZ, maxX, maxY, maxZ], the test's own
   * box). `state` is reused: copy what must outlive the call. A claim older than the history or
   * newer than the present is the remote client's misuse: counted, and handled per `beyondClamp`
   * (a too-new claim is tested at the present unless refused). Throws only for the caller's
   * misuse: a client index out of range, a non-finite tick, a fraction outside [0, 1], a bad volume.
   */
  rewind(
    client: number,
    tick: number,
    fraction: number,
    volume: ArrayLike<number>,
    test: (id: number, state: S) => void,
  ): RewindOutcome {
    const where = 'LagCompensation.rewind';
    if (!Number.isInteger(client) || client < 0 || client >= this.maxClients)
      throw new RangeError(`${where}: client must be an integer in [0, ${this.maxClients}), got ${client}`);
    if (!Number.isFinite(tick)) throw new RangeError(`${where}: tick must be finite, got ${tick}`);
    if (!(fraction >= 0 && fraction <= 1))
      throw new RangeError(`${where}: fraction must be in [0, 1], got ${fraction}`);
    checkVolume(where, volume);
    if (typeof test !== 'function') throw new TypeError(`${where}: test must be a function`);
    const counters = this.counters;
    const base = client * STAT_COUNT;
    const out = this.outcome;
    counters[base + REWINDS]++;
    const claimed = tick + fraction;
    const present = this.newest;
    const oldest = present - this.historyTicks;
    let at = claimed;
    out.claim = 'ok';
    if (present >= 0 && claimed > present) {
      out.claim = 'too-new';
      counters[base + TOO_NEW]++;
      at = present;
    } else if (present >= 0 && claimed < oldest) {
      out.claim = 'too-old';
      counters[base + TOO_OLD]++;
      at = this.beyondClamp === 'oldest' ? oldest : present;
    }
    out.entities = out.skipped = 0;
    if (present < 0 || (out.claim !== 'ok' && this.beyondClamp === 'refuse')) {
      if (present >= 0) counters[base + REFUSED]++;
      out.tested = false;
      out.tick = Number.NaN;
      return out;
    }
    out.tested = true;
    out.tick = at;
    let tested = 0;
    let skipped = 0;
    const { rings, states, heads, counts, blends } = this;
    for (let i = 0; i < this.activeCount; i++) {
      const id = this.active[i];
      const ring = rings[id]!;
      const stride = this.stride;
      const length = ring.length / stride;
      const head = heads[id];
      const count = counts[id];
      // n: how many states back the newest stamped at or before `at` lies (ticks fall as n grows).
      let low = 0;
      let high = count;
      while (low < high) {
        const mid = (low + high) >> 1;
        if (ring[((head - mid + length) % length) * this.stride] <= at) high = mid;
        else low = mid + 1;
      }
      if (low === count) continue; // not yet recorded at that time
      // k: that state; j: the one after it (or k itself at the newest).
      const k = (head - low + length) % length;
      let j = low === 0 ? k : k === length - 1 ? 0 : k + 1;
      let t0 = ring[k * this.stride];
      if (j !== k && ring[j * stride + CHANGE] === 1) {
        // A change: k held until the tick before j's, then blended into it over one tick.
        const held = ring[j * this.stride] - 1;
        if (at <= held) j = k;
        else if (held > t0) t0 = held;
      }
      if (!overlaps(ring, k * stride + BOX, j * stride + BOX, volume)) {
        skipped++;
        continue;
      }
      const f = j === k ? 0 : (at - t0) / (ring[j * this.stride] - t0);
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
        const ringStates = states[id]!;
        from = ringStates[k];
        to = ringStates[j];
      }
      const blended = this.interpolator.interpolate(from, to, f, blends[id]);
      blends[id] = blended;
      tested++;
      test(id, blended);
    }
    counters[base + TESTED] += tested;
    counters[base + SKIPPED] += skipped;
    out.entities = tested;
    out.skipped = skipped;
    return out;
  }

  /** Client `client`'s counters (a new object). */
  stats(client: number): LagCompensationStats {
    if (!Number.isInteger(client) || client < 0 || client >= this.maxClients)
      throw new RangeError(
        `LagCompensation.stats: client must be an integer in [0, ${this.maxClients}), got ${client}`,
      );
    const c = this.counters;
    const base = client * STAT_COUNT;
    return {
      rewinds: c[base + REWINDS],
      tooOld: c[base + TOO_OLD],
      tooNew: c[base + TOO_NEW],
      refused: c[base + REFUSED],
      entitiesTested: c[base + TESTED],
      entitiesSkipped: c[base + SKIPPED],
    };
  }

  /** Zeroes a client's counters (its slot went to a new connection). */
  resetStats(client: number): void {
    this.stats(client);
    this.counters.fill(0, client * STAT_COUNT, (client + 1) * STAT_COUNT);
  }

  /** Throws unless `tick` may be recorded for `id` (an integer, not before the entity's last). */
  private checkSlot(what: string, tick: number, id: number): void {
    this.checkId(what, id);
    if (!Number.isInteger(tick) || tick < 0)
      throw new RangeError(`LagCompensation.${what}: tick must be an integer >= 0, got ${tick}`);
    if (this.counts[id] > 0) {
      const last = this.rings[id]![this.heads[id] * this.stride];
      if (tick < last)
        throw new RangeError(
          `LagCompensation.${what}: tick ${tick} is before entity ${id}'s last record (${last})`,
        );
    }
  }

  /** Copies `state` into `spare`, quantized as clients decode it when there is a layout. */
  private take(state: S): void {
    if (this.layout !== undefined) {
      const lanes = this.scratchLanes!;
      this.layout.quantize(state, lanes);
      this.spare = this.layout.dequantize(lanes, this.spare);
    } else this.spare = this.interpolator.interpolate(state, state, 0, this.spare);
  }

  /**
   * Boxes `spare` (the game's bounds, checked before anything changes) and puts it in `id`'s ring
   * at `tick`: as numbers when the schema is flat, else swapped in (the slot's old object becomes
   * the next spare, so nothing is allocated once the ring's slots are filled). `change`: 1 when
   * recorded by recordChange.
   */
  private commit(tick: number, id: number, change: 0 | 1): void {
    const box = this.box;
    const spare = this.spare;
    // NaN: a side the bounds leave unwritten fails the check below.
    box[0] = box[1] = box[2] = box[3] = box[4] = box[5] = Number.NaN;
    this.bounds(spare, box);
    if (!(box[0] <= box[3] && box[1] <= box[4] && box[2] <= box[5]))
      checkVolume('LagCompensation: the bounds option', box);
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
    if (count === 0 || tick !== ring[head * this.stride]) {
      let length = ring.length / stride;
      if (count === length && length < this.historyTicks + 1) {
        // Full: the oldest state goes only if the one after it covers every tick still claimable.
        const second = (head + 2) % length;
        if (ring[second * this.stride] > Math.max(tick, this.newest) - this.historyTicks) {
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
    ring[at + 1] = box[0];
    ring[at + 2] = box[1];
    ring[at + 3] = box[2];
    ring[at + 4] = box[3];
    ring[at + 5] = box[4];
    ring[at + 6] = box[5];
    ring[at + CHANGE] = change;
    if (flat !== null) for (let i = 0; i < numbers.length; i++) ring[at + STATE + i] = numbers[i];
    else {
      const ringStates = this.states[id]!;
      this.spare = ringStates[head];
      ringStates[head] = spare;
    }
    if (this.activeIndex[id] < 0) {
      this.activeIndex[id] = this.activeCount;
      this.active[this.activeCount++] = id;
    }
    if (tick > this.newest) this.newest = tick;
  }

  /**
   * Gives `id` a ring of `length` states (not fewer than it holds), oldest first, newest at
   * count - 1; returns its numbers. New object slots hold none: a record there leaves the next
   * spare undefined, made by the next take.
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

  private checkId(what: string, id: number): void {
    if (!Number.isInteger(id) || id < 0 || id >= this.capacity)
      throw new RangeError(
        `LagCompensation.${what}: id must be an integer in [0, ${this.capacity}), got ${id}`,
      );
  }
}
