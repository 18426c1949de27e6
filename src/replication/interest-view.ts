/**
 * One client's view of the world: where it looks from, how far, which entities are relevant to
 * it now (O(1) `has`), and what entered and left in the latest `InterestManager.update`.
 *
 * Members live in slots (`ids[0..count)`) with a parallel `priority` column that the priority
 * accumulator fills; a member keeps its slot while it stays relevant, and when one leaves the
 * last slot moves into its place, priority included, so a leaving entity's priority is dropped
 * and an entering one starts at 0. Membership is also a bitset over all ids (capacity / 8 bytes)
 * so `has` is one load, without a per-client map as large as the world.
 */
import { checkIndex } from '../channels/check-index.js';
import { checkPositive } from './check-argument.js';
import { IdList } from './id-list.js';

export interface InterestViewOptions {
  /** An entity becomes relevant within this distance of the view's center. */
  enterRadius: number;
  /**
   * A relevant entity stops being relevant only beyond enterRadius × leaveFactor, so one moving
   * along the edge does not enter and leave on alternate ticks. At least 1; default 1.15.
   */
  leaveFactor?: number;
  /** The entity whose position is the center (the client's own), or -1 to set it by hand. */
  follow?: number;
}

export const DEFAULT_LEAVE_FACTOR = 1.15;
const INITIAL_SLOTS = 64;

export class InterestView {
  /** The client this view belongs to. */
  readonly client: number;
  centerX = 0;
  centerY = 0;
  centerZ = 0;
  /** Ids of the relevant entities in slots [0, count). */
  ids: Int32Array;
  /** The accumulated priority of the entity in the same slot. */
  priority: Float32Array;
  count = 0;
  /**
   * @internal Per member slot: the member's slot in the ghost table of this view's client, plus
   * one (0: none), moved with the member, so the ghost sender's per-candidate loop reads it
   * instead of hashing the id. Filled by `addMember` from the attached table; the sender keeps
   * it true when the table inserts or frees a member's ghost.
   */
  ghostSlots: Uint16Array | Uint32Array;
  /** Entities that became relevant in the latest update. */
  readonly entered = new IdList();
  /**
   * Entities that stopped being relevant in the latest update, including those removed from the
   * world since the update before. An id can be in both lists (removed, then re-added and
   * relevant again): handle `left` before `entered`.
   */
  readonly left = new IdList();
  /** Relevant to this client wherever they are (teammates), whatever the filter says. */
  readonly alwaysRelevant = new IdList(4);
  /** Left lists filled by entity removals between updates; moved into `left` by the next update. */
  readonly pendingLeft = new IdList(4);
  private _enterRadius = 1;
  private _leaveFactor = DEFAULT_LEAVE_FACTOR;
  private _follow = -1;
  private readonly members: Uint32Array;
  private readonly capacity: number;
  /** The ghost table `ghostSlots` follows, or null (a view without a ghost sender). */
  private ghostTable: { find(id: number): number } | null = null;

  /** Made by `InterestManager.addView`. */
  constructor(client: number, capacity: number, options: InterestViewOptions) {
    this.client = client;
    this.capacity = capacity;
    this.members = new Uint32Array(Math.ceil(capacity / 32));
    this.ids = new Int32Array(INITIAL_SLOTS);
    this.priority = new Float32Array(INITIAL_SLOTS);
    this.ghostSlots = newGhostSlots(capacity, INITIAL_SLOTS);
    this.enterRadius = options.enterRadius;
    if (options.leaveFactor !== undefined) this.leaveFactor = options.leaveFactor;
    if (options.follow !== undefined) this.follow = options.follow;
  }

  get enterRadius(): number {
    return this._enterRadius;
  }

  set enterRadius(radius: number) {
    this._enterRadius = checkPositive('InterestView.enterRadius', 'radius', radius);
  }

  get leaveFactor(): number {
    return this._leaveFactor;
  }

  set leaveFactor(factor: number) {
    if (!(factor >= 1 && Number.isFinite(factor)))
      throw new RangeError(`InterestView.leaveFactor: factor must be a finite number >= 1, got ${factor}`);
    this._leaveFactor = factor;
  }

  get leaveRadius(): number {
    return this._enterRadius * this._leaveFactor;
  }

  /** The entity the center follows, or -1. */
  get follow(): number {
    return this._follow;
  }

  set follow(id: number) {
    this._follow = id === -1 ? -1 : checkIndex('InterestView.follow', 'id', id, this.capacity);
  }

  /** Sets the center by hand (used when `follow` is -1 or the followed entity is absent). */
  setCenter(x: number, y: number, z = 0): void {
    if (x - x !== 0 || y - y !== 0 || z - z !== 0)
      throw new RangeError(`InterestView.setCenter: x, y and z must be finite, got ${x}, ${y}, ${z}`);
    this.centerX = x;
    this.centerY = y;
    this.centerZ = z;
  }

  /** Whether the entity is relevant to this client now. O(1). */
  has(id: number): boolean {
    checkIndex('InterestView.has', 'id', id, this.capacity);
    return (this.members[id >>> 5] & (1 << (id & 31))) !== 0;
  }

  /** Makes an entity relevant to this client wherever it is, from the next update. */
  addAlwaysRelevant(id: number): void {
    checkIndex('InterestView.addAlwaysRelevant', 'id', id, this.capacity);
    if (this.alwaysRelevant.indexOf(id) < 0) this.alwaysRelevant.push(id);
  }

  removeAlwaysRelevant(id: number): void {
    const index = this.alwaysRelevant.indexOf(id);
    if (index >= 0) this.alwaysRelevant.swapRemove(index);
  }

  /** The slot of a relevant entity, or -1 (a scan of the members: for tests and rare calls). */
  slotOf(id: number): number {
    for (let slot = 0; slot < this.count; slot++) if (this.ids[slot] === id) return slot;
    return -1;
  }

  /** Bytes of the typed arrays this view holds (for memory budgets). */
  get byteLength(): number {
    return (
      this.members.byteLength +
      this.ids.byteLength +
      this.priority.byteLength +
      this.ghostSlots.byteLength +
      this.entered.items.byteLength +
      this.left.items.byteLength +
      this.alwaysRelevant.items.byteLength +
      this.pendingLeft.items.byteLength
    );
  }

  /** @internal Membership without the argument check, for the update pass. */
  isMember(id: number): boolean {
    return (this.members[id >>> 5] & (1 << (id & 31))) !== 0;
  }

  /**
   * @internal Makes `ghostSlots` follow a ghost table (the one of this view's ghost sender; one
   * per view), filling it for the current members.
   */
  attachGhostTable(table: { find(id: number): number }): void {
    if (this.ghostTable !== null)
      throw new Error('InterestView.attachGhostTable: a table is already attached');
    this.ghostTable = table;
    for (let slot = 0; slot < this.count; slot++) this.ghostSlots[slot] = table.find(this.ids[slot]) + 1;
  }

  /** @internal Adds a member in a new slot with priority 0. */
  addMember(id: number): void {
    if (this.count === this.ids.length) this.growSlots();
    const slot = this.count;
    this.ids[slot] = id;
    this.priority[slot] = 0;
    // An entity back before its destroy was acked still has its ghost.
    this.ghostSlots[slot] = this.ghostTable === null ? 0 : this.ghostTable.find(id) + 1;
    this.count++;
    this.members[id >>> 5] |= 1 << (id & 31);
  }

  /** @internal Drops the member in `slot`; the last slot moves into its place. */
  removeSlot(slot: number): void {
    const id = this.ids[slot];
    this.members[id >>> 5] &= ~(1 << (id & 31));
    const last = --this.count;
    this.ids[slot] = this.ids[last];
    this.priority[slot] = this.priority[last];
    this.ghostSlots[slot] = this.ghostSlots[last];
  }

  private growSlots(): void {
    // By a quarter (at least 32), not double: these are per client, and a view's size is steady.
    const length = this.ids.length;
    const ids = new Int32Array(length + Math.max(32, length >> 2));
    ids.set(this.ids);
    const priority = new Float32Array(ids.length);
    priority.set(this.priority);
    const ghostSlots = newGhostSlots(this.capacity, ids.length);
    ghostSlots.set(this.ghostSlots);
    this.ids = ids;
    this.priority = priority;
    this.ghostSlots = ghostSlots;
  }
}

/** A ghost slot + 1 is at most the world's capacity: 16 bits below 0xffff, as the table's buckets. */
function newGhostSlots(capacity: number, length: number): Uint16Array | Uint32Array {
  return capacity < 0xffff ? new Uint16Array(length) : new Uint32Array(length);
}
