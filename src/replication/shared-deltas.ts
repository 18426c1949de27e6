import type { WriteStream } from '../serialize/write-stream.js';
import { DeltaForms } from './delta-forms.js';
import { FLAGS_ONLY_LANES } from './entity-delta.js';
import { HISTORY_COUNT, HISTORY_HEAD, HISTORY_TICKS } from './entity-history.js';
import { MASK_LANES, type PreviousChanges } from './previous-changes.js';
import type { ServerWorld } from './server-world.js';

/** Baseline ages (ticks back) whose use is counted; older ones count as absolute. */
const MAX_AGE = 16;
/** At most this many ages are encoded ahead. */
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
 * Per entity, one cache line (16 Int32) holding all a measure and a write read, so a client's
 * write finds in cache what its measure loaded, and the array of them (64 B per id) is small
 * enough to stay in a core's cache across clients: the tick its entries were encoded in (older
 * ones are stale, all at once), then a state word, then WAYS entries. Ticks are stored and
 * compared as `tick | 0`, one to one below 2^32 (ticks stop at 0xfffffffe, so -1 stays "none").
 * W4 at 1,000 clients: 1-3 distinct baselines per entity and tick, 4 for 4%, 5 for 0.1% (the
 * fourth replaces the oldest way, and is encoded again if asked again).
 */
const BLOCK = 16;
const WAYS_TICK = 0;
/**
 * The state word: entries filled (bits 0-1), the way the next new entry takes once all are
 * filled (bits 2-3), per way whether a client measured it this tick (bits 4-6: what the next
 * tick's pass encodes ahead), and for layouts of at most FLAGS_ONLY_LANES lanes per way its
 * changed lanes as a mask (8 bits from bit 8 + 8 × way).
 */
const STATE = 1;
const FILL = 3;
const NEXT_SHIFT = 2;
const USED_SHIFT = 4;
const USED_ALL = 0x70;
const MASK_SHIFT = 8;
const WAYS = 3;
const ENTRIES = 2;
/**
 * Numbers per entry: its baseline tick (-1: absolute), the full form's bits, then where the two
 * forms are. A narrow layout's (at most FLAGS_ONLY_LANES lanes: the flags form) repeat form is
 * its full form without the S flag bits; when the full form fits a word both are held right
 * here, else FULL and REPEAT are where their words start in the pool. A wide layout's entry is
 * always in the pool: FULL where the full form's words start, after two numbers (the changed
 * lanes' mask, -1 past MASK_LANES lanes, and the repeat form's bits), REPEAT where its words do.
 */
const STRIDE = 4;
const BASE = 0;
const BITS = 1;
const FULL = 2;
const REPEAT = 3;
const NO_BLOBS: readonly Uint8Array[] = [];

/**
 * Entity deltas encoded once per tick and baseline, for every client that needs them ("work
 * once, share across connections"). Clients that acked the same tick of an entity get the same
 * delta: the first sender to ask encodes both its forms (full and repeat), the others read its
 * size and copy its bits. An entry is keyed by (server tick, entity, baseline tick; -1 for
 * absolute), so a new tick invalidates every entry without a pass over them; each entity keeps
 * its last WAYS baselines, replaced in turn. At W4 (1,000 clients, ~18 per entity) a delta
 * serves ~3 clients.
 */
export class SharedDeltas {
  /** Per entity, a BLOCK: its entries. */
  private readonly blocks: Int32Array;
  /** Per type index: its encoder, and whether its lanes are few enough for the flags form. */
  private readonly forms: DeltaForms[];
  private readonly narrow: boolean[];
  private pool = new Uint32Array(1024);
  private poolLength = 0;
  private poolTick = -1;
  /** Measures per baseline age in the current tick (index 0: absolute or older than MAX_AGE). */
  private ageCounts = new Float64Array(MAX_AGE + 1);
  private lastCounts = new Float64Array(MAX_AGE + 1);
  private countsTick = -1;
  /** The ages (bit per age) encoded ahead this tick; 0: none. */
  private eager = 0;
  /** Entities measured in the current tick and in the one before. */
  private measuredEntities = 0;
  private lastMeasuredEntities = 0;

  constructor(private readonly world: ServerWorld) {
    this.blocks = new Int32Array(world.capacity * BLOCK);
    for (let b = 0; b < this.blocks.length; b += BLOCK) this.blocks[b + WAYS_TICK] = -1;
    this.forms = world.types.map((type) => new DeltaForms(type.layout));
    this.narrow = world.types.map((type) => type.layout.lanes.length <= FLAGS_ONLY_LANES);
  }

  /** Bits of the entity's latest state against its state at `baseTick` (-1: against zero). */
  measure(id: number, baseTick: number): number {
    const age = baseTick < 0 ? 0 : this.world.serverTick - baseTick;
    this.ageCounts[age <= MAX_AGE ? age : 0]++;
    let entry = this.find(id, baseTick);
    if (entry < 0) entry = this.add(id, baseTick);
    const blocks = this.blocks;
    const block = id * BLOCK;
    const state = blocks[block + STATE];
    if ((state & USED_ALL) === 0) this.measuredEntities++;
    blocks[block + STATE] = state | (1 << (USED_SHIFT + ((entry - block - ENTRIES) >> 2)));
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
    const type = this.world.tickedType[id];
    const narrow = this.narrow[type];
    const bits = blocks[entry + BITS];
    const writer = ws.writer;
    let mask: number;
    let repeatBits: number;
    if (narrow) {
      const way = (entry - id * BLOCK - ENTRIES) >> 2;
      mask = (blocks[id * BLOCK + STATE] >>> (MASK_SHIFT + 8 * way)) & 0xff;
      repeatBits = bits - this.forms[type].count;
    } else {
      mask = this.pool[blocks[entry + FULL] - 2] | 0;
      repeatBits = this.pool[blocks[entry + FULL] - 1];
    }
    let form = 0;
    if (previous !== undefined) {
      const layout = this.forms[type].layout;
      if (mask >= 0) {
        // The sets compared as masks: the states are not read.
        form = previous.matchMask(layout, mask);
        const prefix = previous.prefixBits(layout, form);
        if (prefix > 0) writer.writeBits(form === 1 ? 1 : form === 2 ? 0b10 : 0, prefix);
        previous.recordMask(layout, mask);
      } else {
        const history = this.world.histories[id]!;
        const state = history.latest!;
        const base = baseTick < 0 ? layout.zero : history.at(baseTick)!;
        form = previous.match(layout, state, base);
        const prefix = previous.prefixBits(layout, form);
        if (prefix > 0) writer.writeBits(form === 1 ? 1 : form === 2 ? 0b10 : 0, prefix);
        previous.record(layout, state, base);
      }
    }
    if (narrow && bits <= 32) {
      // Both forms in the entry itself.
      if (form === 0) {
        if (bits > 0) writer.writeBits(blocks[entry + FULL], bits);
      } else if (repeatBits > 0) writer.writeBits(blocks[entry + REPEAT], repeatBits);
      return;
    }
    const pool = this.pool;
    let at = blocks[entry + (form === 0 ? FULL : REPEAT)];
    let left = form === 0 ? bits : repeatBits;
    for (; left >= 32; left -= 32) writer.writeBits(pool[at++], 32);
    if (left > 0) writer.writeBits(pool[at], left);
  }

  /**
   * Once per tick, before any client measures: encodes every entity changed this tick against
   * the baseline ages most clients used last tick, for the entities measured at those ages last
   * tick. Those are the deltas nearly every client needs (on steady links most acked the same
   * recent ticks). A world that has this as its `recorder` (a ReplicationServer's) has done it
   * during its tick, each entity right after recording it, while its history is in cache; else
   * this walks the changed entities in id order, which still reads the histories far faster than
   * the clients' scattered requests. The rest are encoded on demand.
   */
  prepare(): void {
    const world = this.world;
    const tick = world.serverTick;
    if (this.countsTick === tick) return;
    this.beginTick(tick);
    if (this.eager === 0) return;
    const latestTicks = world.latestTicks;
    for (let id = 0; id < world.capacity; id++) if (latestTicks[id] === tick) this.recorded(id);
  }

  /**
   * @internal The world's tick `tick` starts (the serverTick already is `tick`): last tick's
   * measures choose the ages to encode ahead.
   */
  beginTick(tick: number): void {
    this.countsTick = tick;
    this.eager = 0;
    const last = this.ageCounts;
    this.ageCounts = this.lastCounts;
    this.ageCounts.fill(0);
    this.lastCounts = last;
    this.lastMeasuredEntities = this.measuredEntities;
    this.measuredEntities = 0;
    let total = 0;
    for (let age = 0; age <= MAX_AGE; age++) total += last[age];
    if (total === 0 || total < EAGER_SHARING * this.lastMeasuredEntities) return;
    let eager = 0;
    let ages = 0;
    for (let age = 1; age <= MAX_AGE && ages < EAGER_AGES; age++) {
      if (last[age] < EAGER_SHARE * total) continue;
      eager |= 1 << age;
      ages++;
    }
    this.eager = eager;
  }

  /** @internal The world recorded entity `id`'s new state in this tick: encodes it ahead. */
  recorded(id: number): void {
    const eager = this.eager;
    if (eager === 0) return;
    // Only for entities some client measured last tick, at the ages measured: an entity nobody
    // sees (most of them with few clients) costs nothing.
    const blocks = this.blocks;
    const block = id * BLOCK;
    const tick = this.countsTick;
    const lastTick = (tick - 1) | 0;
    if (blocks[block + WAYS_TICK] !== lastTick) return;
    const state = blocks[block + STATE];
    if ((state & USED_ALL) === 0) return;
    // The ages are read before the first add starts this tick's entries over.
    let wanted = 0;
    const fill = state & FILL;
    for (let way = 0; way < fill; way++) {
      const base = blocks[block + ENTRIES + way * STRIDE + BASE];
      if ((state & (1 << (USED_SHIFT + way))) === 0 || base === -1) continue;
      const age = (lastTick - base) | 0;
      if (age <= MAX_AGE) wanted |= (1 << age) & eager;
    }
    const oldest = this.world.oldestTicks[id];
    for (let age = 1; wanted !== 0; age++) {
      if ((wanted & (1 << age)) === 0) continue;
      wanted &= ~(1 << age);
      const baseTick = tick - age;
      if (oldest <= baseTick && this.find(id, baseTick) < 0) this.add(id, baseTick);
    }
  }

  /** Where the entity's entry for this tick and baseline starts in `blocks`, or -1. */
  private find(id: number, baseTick: number): number {
    const blocks = this.blocks;
    const block = id * BLOCK;
    if (blocks[block + WAYS_TICK] !== (this.world.serverTick | 0)) return -1;
    const end = block + ENTRIES + (blocks[block + STATE] & FILL) * STRIDE;
    for (let e = block + ENTRIES; e < end; e += STRIDE) if (blocks[e + BASE] === (baseTick | 0)) return e;
    return -1;
  }

  /**
   * Encodes the delta's two forms as a new entry (into the pool, emptied when the tick changed,
   * when they do not fit the entry). Encoding at once, rather than measuring first, walks the
   * states once: nearly every delta measured is also written to some client.
   */
  private add(id: number, baseTick: number): number {
    const world = this.world;
    const tick = world.serverTick;
    const type = world.tickedType[id];
    const forms = this.forms[type];
    if (forms.layout.blobs.length > 0) {
      const history = world.histories[id]!;
      const base = baseTick < 0 ? forms.layout.zero : history.at(baseTick);
      if (base === null) throw new Error(`SharedDeltas: entity ${id} has no state at tick ${baseTick}`);
      forms.encode(history.latest!, base);
    } else {
      // The ring read in place from the world's flat record (entity-history.ts), in id order
      // when the pass encodes ahead: no history or state objects touched.
      const record = world.historyStores[id]!;
      const offset = world.historyOffsets[id];
      const length = world.historyLength;
      const lanes = forms.count;
      const head = record[offset + HISTORY_HEAD];
      const ticks = offset + HISTORY_TICKS;
      const first = ticks + length;
      let baseLanes = forms.layout.zero.lanes;
      let baseAt = 0;
      if (baseTick >= 0) {
        baseAt = -1;
        const count = record[offset + HISTORY_COUNT];
        for (let k = 0, i = head; k < count; k++, i = i === 0 ? length - 1 : i - 1) {
          if (record[ticks + i] > baseTick) continue;
          baseAt = first + i * lanes;
          break;
        }
        if (baseAt < 0) throw new Error(`SharedDeltas: entity ${id} has no state at tick ${baseTick}`);
        baseLanes = record;
      }
      forms.encodeLanes(record, first + head * lanes, baseLanes, baseAt, NO_BLOBS, NO_BLOBS);
    }
    const blocks = this.blocks;
    const block = id * BLOCK;
    if (blocks[block + WAYS_TICK] !== (tick | 0)) {
      blocks[block + WAYS_TICK] = tick;
      blocks[block + STATE] = 0;
    }
    let state = blocks[block + STATE];
    const fill = state & FILL;
    let way: number;
    if (fill < WAYS) {
      way = fill;
      state = (state & ~FILL) | (fill + 1);
    } else {
      way = (state >>> NEXT_SHIFT) & 3;
      state = (state & ~(3 << NEXT_SHIFT)) | (((way + 1) % WAYS) << NEXT_SHIFT);
    }
    state &= ~(1 << (USED_SHIFT + way));
    const e = block + ENTRIES + way * STRIDE;
    blocks[e + BASE] = baseTick;
    const bits = forms.fullBits;
    blocks[e + BITS] = bits;
    if (this.narrow[type]) {
      const shift = MASK_SHIFT + 8 * way;
      state = (state & ~(0xff << shift)) | (forms.mask << shift);
      if (bits <= 32) {
        blocks[e + FULL] = forms.full[0];
        blocks[e + REPEAT] = forms.repeat[0];
      } else {
        blocks[e + FULL] = this.store(forms.full, forms.fullWords);
        blocks[e + REPEAT] = this.store(forms.repeat, forms.repeatWords);
      }
    } else {
      this.reserve(2);
      this.pool[this.poolLength++] = forms.layout.lanes.length > MASK_LANES ? -1 : forms.mask;
      this.pool[this.poolLength++] = forms.repeatBits;
      blocks[e + FULL] = this.store(forms.full, forms.fullWords);
      blocks[e + REPEAT] = this.store(forms.repeat, forms.repeatWords);
    }
    blocks[block + STATE] = state;
    return e;
  }

  /** Makes room for `words` more in the pool, emptied when the tick changed. */
  private reserve(words: number): void {
    const tick = this.world.serverTick;
    if (this.poolTick !== tick) {
      this.poolTick = tick;
      this.poolLength = 0;
    }
    if (this.poolLength + words <= this.pool.length) return;
    const bigger = new Uint32Array(Math.max(this.pool.length * 2, this.poolLength + words));
    bigger.set(this.pool);
    this.pool = bigger;
  }

  /** Copies words into the pool; returns where they start. */
  private store(from: Uint32Array, words: number): number {
    this.reserve(words);
    const pool = this.pool;
    const at = this.poolLength;
    for (let i = 0; i < words; i++) pool[at + i] = from[i];
    this.poolLength = at + words;
    return at;
  }
}
