import { BitWriterOverflowError } from '../bits/bit-writer.js';
import { WriteStream } from '../serialize/write-stream.js';
import { encodeDelta, encodeDeltaForms } from './entity-delta.js';
import type { EntityLayout } from './entity-layout.js';
import type { LaneState } from './lane-state.js';
import { changedMask, type PreviousChanges } from './previous-changes.js';
import type { ServerWorld } from './server-world.js';

/** Entries kept per entity: the distinct baselines its clients are likely to share in a tick. */
const WAYS = 6;
/** Baseline ages (ticks back) whose use is counted; older ones count as absolute. */
const MAX_AGE = 16;
/** At most this many ages are encoded ahead, leaving ways for the others. */
const EAGER_AGES = 3;
/** An age is encoded ahead when it served at least this share of the last tick's measures. */
const EAGER_SHARE = 0.15;
/**
 * The pass runs only when last tick's measures were at least this many per entity measured: with
 * few clients per entity (W4 at 100 clients: ~0.9) an entity measured one tick is often not
 * the next (budgets take turns), and encoding ahead would mostly be wasted work.
 */
const EAGER_SHARING = 2;

/**
 * Per entity, one block of numbers holding all a measure and a write read, so the write of a
 * client's update finds in cache what its measure loaded: the tick its entries were encoded in
 * (older ones are stale, all at once), entries filled then × 8 + the way the next new entry
 * takes, the tick of the ages measured and those ages (bit per age 1..MAX_AGE: what the pass
 * encodes ahead), then WAYS entries. Int32 to keep a block small (three cache lines): ticks
 * are stored and compared as `tick | 0`, one to one below 2^32 (ticks stop at 0xfffffffe, so
 * -1 stays "none").
 */
const WAYS_TICK = 0;
const WAYS_FILL = 1;
const AGES_TICK = 2;
const AGES = 3;
const ENTRIES = 4;
/**
 * Numbers per entry: its baseline tick (-1: absolute), bits and where its words start in the
 * pool, the same for the repeat form (only the changed lanes' values: a client whose previous
 * update changed the same lanes; REPEAT_BITS -1 until encoded), then the changed lanes as a mask
 * (changedMask; -1 for wide layouts), so a write matches the client's previous sets without
 * reading the states.
 */
const STRIDE = 6;
const BASE = 0;
const BITS = 1;
const WORDS = 2;
const REPEAT_BITS = 3;
const REPEAT_WORDS = 4;
const MASK = 5;
const BLOCK = ENTRIES + WAYS * STRIDE;

/**
 * Entity deltas encoded once per tick and baseline, for every client that needs them ("work
 * once, share across connections"). Clients that acked the same tick of an entity get the same
 * delta: the first sender to ask encodes it into a pool of words, the others read its size and
 * copy its bits. An entry is keyed by (server tick, entity, baseline tick; -1 for absolute), so a
 * new tick invalidates every entry without a pass over them; each entity keeps its last WAYS
 * baselines, replaced in turn. At W4 (1,000 clients, ~18 per entity) a delta serves ~4 clients.
 */
export class SharedDeltas {
  /** Per entity, a BLOCK: its entries and its ages. */
  private readonly blocks: Int32Array;
  private pool = new Uint32Array(1024);
  private poolLength = 0;
  private poolTick = -1;
  private scratch = new WriteStream(256);
  private repeatScratch = new WriteStream(256);
  /** Measures per baseline age in the current tick (index 0: absolute or older than MAX_AGE). */
  private ageCounts = new Float64Array(MAX_AGE + 1);
  private lastCounts = new Float64Array(MAX_AGE + 1);
  private countsTick = -1;
  private readonly eager: number[] = [];
  /** Entities measured in the current tick and in the one before. */
  private measuredEntities = 0;
  private lastMeasuredEntities = 0;

  constructor(private readonly world: ServerWorld) {
    this.blocks = new Int32Array(world.capacity * BLOCK);
    for (let b = 0; b < this.blocks.length; b += BLOCK) {
      this.blocks[b + WAYS_TICK] = -1;
      this.blocks[b + AGES_TICK] = -1;
    }
  }

  /** Bits of the entity's latest state against its state at `baseTick` (-1: against zero). */
  measure(id: number, baseTick: number): number {
    const tick = this.world.serverTick;
    const age = baseTick < 0 ? 0 : tick - baseTick;
    const counted = age <= MAX_AGE ? age : 0;
    this.ageCounts[counted]++;
    const blocks = this.blocks;
    const block = id * BLOCK;
    if (blocks[block + AGES_TICK] !== (tick | 0)) {
      blocks[block + AGES_TICK] = tick;
      blocks[block + AGES] = 0;
      this.measuredEntities++;
    }
    blocks[block + AGES] = blocks[block + AGES] | (1 << counted);
    let entry = this.find(id, baseTick);
    if (entry < 0) entry = this.add(id, baseTick);
    return blocks[entry + BITS];
  }

  /**
   * Writes what writeDelta writes, after the update `previous` holds when given (and records this
   * one there): the repeat prefix, then the delta `measure` counted or, when its changed lanes
   * repeat a set `previous` holds, their values alone (fewer bits). Creates pass no `previous`.
   */
  write(ws: WriteStream, id: number, baseTick: number, previous?: PreviousChanges): void {
    let entry = this.find(id, baseTick);
    if (entry < 0) entry = this.add(id, baseTick);
    const blocks = this.blocks;
    let form = 0;
    const mask = blocks[entry + MASK];
    if (previous !== undefined && mask >= 0) {
      // The sets compared as masks: the states are read only to encode the repeat form once. The
      // layout from the type (a flat array the sender read already), not the history object.
      const world = this.world;
      const layout = world.types[world.tickedType[id]].layout as EntityLayout<unknown>;
      form = previous.matchMask(layout, mask);
      const prefix = previous.prefixBits(layout, form);
      if (prefix > 0) ws.bits(form === 1 ? 1 : form === 2 ? 0b10 : 0, prefix);
      previous.recordMask(layout, mask);
      if (form !== 0 && blocks[entry + REPEAT_BITS] < 0) {
        const history = this.world.histories[id]!;
        const base = baseTick < 0 ? layout.zero : history.at(baseTick)!;
        this.addRepeat(entry, layout, history.latest!, base);
      }
    } else if (previous !== undefined) {
      const history = this.world.histories[id]!;
      const layout = history.layout as EntityLayout<unknown>;
      const state = history.latest!;
      const base = baseTick < 0 ? layout.zero : history.at(baseTick)!;
      form = previous.match(layout, state, base);
      const prefix = previous.prefixBits(layout, form);
      if (prefix > 0) ws.bits(form === 1 ? 1 : form === 2 ? 0b10 : 0, prefix);
      previous.record(layout, state, base);
      if (form !== 0 && blocks[entry + REPEAT_BITS] < 0) this.addRepeat(entry, layout, state, base);
    }
    const pool = this.pool;
    let at = blocks[entry + (form === 0 ? WORDS : REPEAT_WORDS)];
    let bits = blocks[entry + (form === 0 ? BITS : REPEAT_BITS)];
    for (; bits >= 32; bits -= 32) ws.bits(pool[at++], 32);
    if (bits > 0) ws.bits(pool[at], bits);
  }

  /**
   * Once per tick, before any client measures: encodes every entity changed this tick against
   * the baseline ages most clients used last tick, walking the entities in id order. Those are
   * the deltas nearly every client needs (on steady links most acked the same recent ticks),
   * and a pass in id order reads the histories far faster than the clients' scattered requests;
   * the rest are still encoded on demand.
   */
  prepare(): void {
    const world = this.world;
    const tick = world.serverTick;
    if (this.countsTick === tick) return;
    this.countsTick = tick;
    const last = this.ageCounts;
    this.ageCounts = this.lastCounts;
    this.ageCounts.fill(0);
    this.lastCounts = last;
    this.lastMeasuredEntities = this.measuredEntities;
    this.measuredEntities = 0;
    let total = 0;
    for (let age = 0; age <= MAX_AGE; age++) total += last[age];
    const eager = this.eager;
    eager.length = 0;
    if (total < EAGER_SHARING * this.lastMeasuredEntities) return;
    for (let age = 1; age <= MAX_AGE && eager.length < EAGER_AGES; age++)
      if (total > 0 && last[age] >= EAGER_SHARE * total) eager.push(age);
    if (eager.length === 0) return;
    let eagerMask = 0;
    for (let k = 0; k < eager.length; k++) eagerMask |= 1 << eager[k];
    const { latestTicks, oldestTicks } = world;
    const blocks = this.blocks;
    for (let id = 0; id < world.capacity; id++) {
      if (latestTicks[id] !== tick) continue;
      // Only for entities some client measured last tick, at the ages they measured: an entity
      // nobody sees (most of them with few clients) costs nothing.
      const block = id * BLOCK;
      const wanted = blocks[block + AGES_TICK] === ((tick - 1) | 0) ? blocks[block + AGES] & eagerMask : 0;
      if (wanted === 0) continue;
      for (let k = 0; k < eager.length; k++) {
        if ((wanted & (1 << eager[k])) === 0) continue;
        const baseTick = tick - eager[k];
        if (oldestTicks[id] <= baseTick && this.find(id, baseTick) < 0) this.add(id, baseTick);
      }
    }
  }

  /** Where the entity's entry for this tick and baseline starts in `blocks`, or -1. */
  private find(id: number, baseTick: number): number {
    const blocks = this.blocks;
    const block = id * BLOCK;
    if (blocks[block + WAYS_TICK] !== (this.world.serverTick | 0)) return -1;
    const end = block + ENTRIES + (blocks[block + WAYS_FILL] >>> 3) * STRIDE;
    for (let e = block + ENTRIES; e < end; e += STRIDE) if (blocks[e + BASE] === (baseTick | 0)) return e;
    return -1;
  }

  /**
   * Encodes the delta into the pool (emptied when the tick changed) as a new entry. Encoding at
   * once, rather than measuring first, walks the states once: nearly every delta measured is
   * also written to some client.
   */
  private add(id: number, baseTick: number): number {
    const tick = this.world.serverTick;
    if (this.poolTick !== tick) {
      this.poolTick = tick;
      this.poolLength = 0;
    }
    const history = this.world.histories[id]!;
    const base = baseTick < 0 ? history.layout.zero : history.at(baseTick);
    if (base === null) throw new Error(`SharedDeltas: entity ${id} has no state at tick ${baseTick}`);
    const layout = history.layout as EntityLayout<unknown>;
    const state = history.latest!;
    const mask = changedMask(state, base);
    // Against a baseline the repeat form is the usual one (moving things change the same lanes
    // tick after tick): both forms are encoded now, in one pass. Creates never repeat.
    const both = baseTick >= 0 && mask >= 0;
    this.encode(layout, state, base, both ? 2 : 0);
    const blocks = this.blocks;
    const block = id * BLOCK;
    if (blocks[block + WAYS_TICK] !== (tick | 0)) {
      blocks[block + WAYS_TICK] = tick;
      blocks[block + WAYS_FILL] = 0;
    }
    const fill = blocks[block + WAYS_FILL];
    const way = fill & 7;
    const filled = Math.min(WAYS, (fill >>> 3) + 1);
    blocks[block + WAYS_FILL] = filled * 8 + ((way + 1) % WAYS);
    const e = block + ENTRIES + way * STRIDE;
    blocks[e + BASE] = baseTick;
    blocks[e + BITS] = this.scratch.bitsProcessed;
    this.blocks[e + WORDS] = this.store(this.scratch);
    this.blocks[e + REPEAT_BITS] = -1;
    if (both) {
      this.blocks[e + REPEAT_BITS] = this.repeatScratch.bitsProcessed;
      this.blocks[e + REPEAT_WORDS] = this.store(this.repeatScratch);
    }
    this.blocks[e + MASK] = mask;
    return e;
  }

  /** Adds the repeat form of the entry (same tick: the pool still holds its full form). */
  private addRepeat(e: number, layout: EntityLayout<unknown>, state: LaneState, base: LaneState): void {
    this.encode(layout, state, base, 1);
    this.blocks[e + REPEAT_BITS] = this.scratch.bitsProcessed;
    this.blocks[e + REPEAT_WORDS] = this.store(this.scratch);
  }

  /**
   * Encodes a delta into the scratch streams: `forms` 0 the full form into `scratch`, 1 the
   * repeat form into `scratch`, 2 both (the repeat one into `repeatScratch`).
   */
  private encode(layout: EntityLayout<unknown>, state: LaneState, base: LaneState, forms: number): void {
    for (;;) {
      const ws = this.scratch;
      const repeat = this.repeatScratch;
      ws.reset();
      repeat.reset();
      try {
        if (forms === 2) encodeDeltaForms(ws, repeat, layout, state, base);
        else encodeDelta(ws, layout, state, base, forms === 1);
        return;
      } catch (error) {
        // Only a state larger than any before (long blobs) overflows: retry in larger buffers.
        if (!(error instanceof BitWriterOverflowError)) throw error;
        this.scratch = new WriteStream(ws.writer.capacityBytes * 4);
        this.repeatScratch = new WriteStream(repeat.writer.capacityBytes * 4);
      }
    }
  }

  /** Copies a scratch stream's words into the pool (emptied when the tick changed); returns where they start. */
  private store(ws: WriteStream): number {
    const words = (ws.bitsProcessed + 31) >>> 5;
    if (this.poolLength + words > this.pool.length) {
      const bigger = new Uint32Array(Math.max(this.pool.length * 2, this.poolLength + words));
      bigger.set(this.pool);
      this.pool = bigger;
    }
    const at = this.poolLength;
    ws.writer.copyWords(this.pool, at);
    this.poolLength += words;
    return at;
  }
}
