import type { EntityLayout } from '../replication/entity-layout.js';
import type { LaneState } from '../replication/lane-state.js';
import type { Entity, ServerWorld } from '../replication/server-world.js';
import type { Interpolator } from './interpolation.js';
import { checkVolume } from './lag-boxes.js';
import type {
  BeyondClamp,
  LagCompensationOptions,
  LagCompensationStats,
  RewindClaim,
  RewindOutcome,
} from './lag-compensation-options.js';
import { LagRings } from './lag-rings.js';

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
  /** Each entity's recorded states (lag-rings.ts). */
  private readonly rings: LagRings<S>;
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
    this.rings = new LagRings(capacity, interpolator, this.historyTicks);
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
    const held = this.rings.held(id);
    // The world's newest state of it is the one recorded last: it held, nothing to record.
    if (held && changed <= this.rings.newestTick(id)) {
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
    this.rings.clear(id);
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
    const rings = this.rings;
    rings.at[0] = at;
    rings.testAll(this.active, this.activeCount, volume, test);
    const tested = rings.tested;
    const skipped = rings.skipped;
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
    if (this.rings.held(id)) {
      const last = this.rings.newestTick(id);
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
    this.spare = this.rings.put(id, tick, change, box, spare, this.newest);
    if (this.activeIndex[id] < 0) {
      this.activeIndex[id] = this.activeCount;
      this.active[this.activeCount++] = id;
    }
    if (tick > this.newest) this.newest = tick;
  }

  private checkId(what: string, id: number): void {
    if (!Number.isInteger(id) || id < 0 || id >= this.capacity)
      throw new RangeError(
        `LagCompensation.${what}: id must be an integer in [0, ${this.capacity}), got ${id}`,
      );
  }
}
