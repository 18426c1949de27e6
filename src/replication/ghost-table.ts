/**
 * One client's ghosts on the server, by entity id, in memory proportional to the ghosts it has
 * rather than to the world's capacity: an open-addressing hash (linear probing, at most half
 * full) maps an id to a slot, and the ghost's fields live in slot-indexed columns. The columns
 * start small and grow when full (by half, by an eighth past 128 slots), never past the world's
 * capacity; a removed ghost's slot is reused by the next insert. At 177 ghosts a client holds
 * 198 slots of 31 bytes and 396 buckets of 2 bytes, about 6.9 KB, where columns over every id of
 * a 10,000-entity world took 480 KB.
 *
 * The columns are public for the sender's hot loops; an insert may replace them (growth), so
 * read them from the table again after one.
 */

/** A ghost's status (low 2 bits of its flags): what the client has or is being told. */
export const CREATE_PENDING = 1;
export const LIVE = 2;
export const DESTROY_PENDING = 3;
export const STATUS = 3;
/** A pending destroy's entity left the world (not only this client's interest). */
export const GONE = 4;
/** The update planned for this packet is a delta against the acked baseline (else absolute). */
export const PLANNED_DELTA = 8;
/** Send counts are 16 bits: differences are taken modulo this. */
export const SENDS_MASK = 0xffff;

/** Slots a table starts with. */
const INITIAL_SLOTS = 8;
/** Fibonacci hashing: ids that are close land far apart. */
const GOLDEN = 0x9e3779b1;

export class GhostTable {
  /** The most ghosts (the world's capacity): ids are in [0, capacity). */
  readonly capacity: number;
  /**
   * Per slot: the entity id; a free slot holds -2 - the next free slot (-1: the last), so the
   * free list costs no array of its own.
   */
  ids: Int32Array;
  /** Per slot: the sender's status and flag bits (CREATE_PENDING ... PLANNED_DELTA above). */
  flags: Uint8Array;
  /** Per slot: the generation of the entity the client has or is being told about. */
  generation: Uint16Array;
  /**
   * Per slot: bumped when a create or destroy starts, so acks of older packets change nothing;
   * 0 in a free slot (and in a new one until its create sets it).
   */
  epoch: Uint32Array;
  /** Per slot: the newest tick the client acked, plus one (0: none; see baselineTick()). */
  baselinePlusOne: Uint32Array;
  /** Per slot: the send count when the baseline was written (wraps; compare differences). */
  baselineSends: Uint16Array;
  /** Per slot: distinct ticks the entity was written at (wraps; compare differences). */
  sends: Uint16Array;
  /** Per slot: the tick the entity was last written at (for counting distinct ticks). */
  lastSendTick: Uint32Array;
  /** Per slot: when a create or destroy was last written, seconds. */
  lastSentAt: Float64Array;
  /** Slot + 1 per bucket (0: empty); 16-bit when the capacity allows. */
  private buckets: Uint16Array | Uint32Array;
  /** Buckets / 2^32: a 32-bit hash times this is its home bucket. */
  private scale = 0;
  /** The first free slot, or -1. */
  private freeHead: number;
  private _size = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1 || capacity > 65536)
      throw new RangeError(`GhostTable: capacity must be an integer in [1, 65536], got ${capacity}`);
    this.capacity = capacity;
    const slots = Math.min(INITIAL_SLOTS, capacity);
    this.ids = new Int32Array(slots);
    this.flags = new Uint8Array(slots);
    this.generation = new Uint16Array(slots);
    this.epoch = new Uint32Array(slots);
    this.baselinePlusOne = new Uint32Array(slots);
    this.baselineSends = new Uint16Array(slots);
    this.sends = new Uint16Array(slots);
    this.lastSendTick = new Uint32Array(slots);
    this.lastSentAt = new Float64Array(slots);
    this.freeHead = chainFree(this.ids, 0, slots);
    this.buckets = this.makeBuckets(slots);
  }

  /** Ghosts in the table. */
  get size(): number {
    return this._size;
  }

  /** Slots allocated (what the columns hold). */
  get slotCapacity(): number {
    return this.ids.length;
  }

  /** Bytes of the typed arrays the table holds. */
  get byteLength(): number {
    return (
      this.ids.byteLength +
      this.flags.byteLength +
      this.generation.byteLength +
      this.epoch.byteLength +
      this.baselinePlusOne.byteLength +
      this.baselineSends.byteLength +
      this.sends.byteLength +
      this.lastSendTick.byteLength +
      this.lastSentAt.byteLength +
      this.buckets.byteLength
    );
  }

  /** The slot of `id`, or -1 when the client has no ghost of it. */
  find(id: number): number {
    const buckets = this.buckets;
    const last = buckets.length - 1;
    for (let b = this.home(id); ; b = b === last ? 0 : b + 1) {
      const slot = buckets[b] - 1;
      if (slot < 0) return -1;
      if (this.ids[slot] === id) return slot;
    }
  }

  /**
   * Adds `id` (which must be absent) in a slot with every column zeroed (no baseline) and
   * returns the slot. May grow the columns.
   */
  insert(id: number): number {
    if (!(id >= 0 && id < this.capacity && Number.isInteger(id)))
      throw new RangeError(`GhostTable.insert: id must be an integer in [0, ${this.capacity}), got ${id}`);
    if (this.find(id) >= 0) throw new RangeError(`GhostTable.insert: id ${id} is already in the table`);
    if (this.freeHead < 0) this.grow();
    const slot = this.freeHead;
    this.freeHead = -2 - this.ids[slot];
    this.ids[slot] = id;
    this.flags[slot] = 0;
    this.generation[slot] = 0;
    this.epoch[slot] = 0;
    this.baselinePlusOne[slot] = 0;
    this.baselineSends[slot] = 0;
    this.sends[slot] = 0;
    this.lastSendTick[slot] = 0;
    this.lastSentAt[slot] = 0;
    this.place(this.buckets, id, slot);
    this._size++;
    return slot;
  }

  /** Frees a ghost's slot (the next insert may reuse it). */
  remove(slot: number): void {
    const id = this.ids[slot];
    if (!(slot >= 0 && slot < this.ids.length) || id < 0)
      throw new RangeError(`GhostTable.remove: slot ${slot} holds no ghost`);
    const buckets = this.buckets;
    const last = buckets.length - 1;
    let hole = this.home(id);
    while (buckets[hole] - 1 !== slot) hole = hole === last ? 0 : hole + 1;
    // Backward-shift deletion: pull later entries of the probe run into the hole, so lookups
    // never need tombstones.
    for (let next = hole === last ? 0 : hole + 1; ; next = next === last ? 0 : next + 1) {
      const moved = buckets[next] - 1;
      if (moved < 0) break;
      const home = this.home(this.ids[moved]);
      // An entry whose home lies cyclically in (hole, next] stays where it is.
      const stays = hole <= next ? hole < home && home <= next : hole < home || home <= next;
      if (stays) continue;
      buckets[hole] = buckets[next];
      hole = next;
    }
    buckets[hole] = 0;
    this.epoch[slot] = 0;
    this.ids[slot] = -2 - this.freeHead;
    this.freeHead = slot;
    this._size--;
  }

  /** The acked baseline tick of a slot, or -1. */
  baselineTick(slot: number): number {
    return this.baselinePlusOne[slot] - 1;
  }

  /** Sets the acked baseline tick (a tick past 2^32 - 2 is forgotten: the next delta is absolute). */
  setBaselineTick(slot: number, tick: number): void {
    this.baselinePlusOne[slot] = tick + 1;
  }

  /** The bucket an id's probe starts at: Fibonacci hashing, scaled to the bucket count. */
  private home(id: number): number {
    return Math.floor((Math.imul(id, GOLDEN) >>> 0) * this.scale);
  }

  private makeBuckets(slots: number): Uint16Array | Uint32Array {
    // Twice the slots: at most half full, so probe runs stay short.
    const count = slots * 2;
    this.scale = count / 2 ** 32;
    return this.capacity < 0xffff ? new Uint16Array(count) : new Uint32Array(count);
  }

  private place(buckets: Uint16Array | Uint32Array, id: number, slot: number): void {
    const last = buckets.length - 1;
    let b = this.home(id);
    while (buckets[b] !== 0) b = b === last ? 0 : b + 1;
    buckets[b] = slot + 1;
  }

  private grow(): void {
    const old = this.ids.length;
    if (old >= this.capacity) throw new RangeError(`GhostTable: more than ${this.capacity} ghosts`);
    // × 1.5 while small, then by an eighth: memory follows the ghost count closely (these are
    // per client, and a client's ghost count is steady once it joined).
    const slots = Math.min(old < 128 ? Math.ceil(old * 1.5) : old + (old >> 3), this.capacity);
    this.ids = grown(this.ids, new Int32Array(slots));
    this.flags = grown(this.flags, new Uint8Array(slots));
    this.generation = grown(this.generation, new Uint16Array(slots));
    this.epoch = grown(this.epoch, new Uint32Array(slots));
    this.baselinePlusOne = grown(this.baselinePlusOne, new Uint32Array(slots));
    this.baselineSends = grown(this.baselineSends, new Uint16Array(slots));
    this.sends = grown(this.sends, new Uint16Array(slots));
    this.lastSendTick = grown(this.lastSendTick, new Uint32Array(slots));
    this.lastSentAt = grown(this.lastSentAt, new Float64Array(slots));
    // Only called when every slot is taken: the free list is the new ones.
    this.freeHead = chainFree(this.ids, old, slots);
    const buckets = this.makeBuckets(slots);
    for (let slot = 0; slot < old; slot++) this.place(buckets, this.ids[slot], slot);
    this.buckets = buckets;
  }
}

/** Links slots [from, to) into a free list in order; returns its head. */
function chainFree(ids: Int32Array, from: number, to: number): number {
  for (let slot = from; slot < to; slot++) ids[slot] = slot + 1 < to ? -2 - (slot + 1) : -1;
  return from < to ? from : -1;
}

function grown<A extends Int32Array | Uint8Array | Uint16Array | Uint32Array | Float64Array>(
  from: A,
  to: A,
): A {
  to.set(from as never);
  return to;
}
