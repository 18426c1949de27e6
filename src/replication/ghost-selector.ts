import type { GhostShared } from './ghost-sender.js';
import {
  CREATE_PENDING,
  DESTROY_PENDING,
  type GhostTable,
  PLANNED_DELTA,
  SENDS_MASK,
  STATUS,
} from './ghost-table.js';
import { baselineBits, GENERATION_BITS, MAX_REFERENCE_BITS, maxUpdateIdBits } from './ghost-wire.js';
import type { IdList } from './id-list.js';
import type { InterestView } from './interest-view.js';
import { MAX_REPEAT_PREFIX_BITS } from './previous-changes.js';

/** What a candidate needs this packet (GhostSelector.judge). */
const SKIP = 0;
const CREATE = 1;
/** Live, and the client holds its latest state: taken for 0 bits (its priority resets). */
const UNCHANGED = 2;
/** An update against the acked baseline. */
const DELTA = 3;
const ABSOLUTE = 4;

/**
 * One client's choice of creates and updates for its next packet (GhostSender.select's middle
 * part), into the shared plan: the view's members in descending priority until the packet is
 * full (selectByPriority), or, when the packet before took every member, all of them without
 * ordering when they fit (selectAll: the demo arena's rooms take ~all of a client's ~100
 * members every tick, where the priority heap cost more than the rest of the choice).
 */
export class GhostSelector {
  /** Whether the latest selection took every member (so the next one tries selectAll first). */
  tookAll = false;
  /** Per select: what judge() reads besides the candidate. */
  private resendAt = 0;
  private updateIdBits = 0;
  private historyReach = 0;
  /** The bits of the candidate judge() judged last. */
  private judgedBits = 0;
  /** The bits selectAll planned. */
  private allBits = 0;

  constructor(
    private readonly shared: GhostShared,
    private readonly view: InterestView,
    private readonly table: GhostTable,
    private readonly idBits: number,
    private readonly typeBits: number,
  ) {}

  /**
   * Plans within `room` bits (creates and destroys written before `resendAt` may go again);
   * returns the bits left.
   */
  select(room: number, resendAt: number): number {
    const world = this.shared.world;
    this.resendAt = resendAt;
    this.updateIdBits = maxUpdateIdBits(world.capacity);
    this.historyReach = world.historyLength - 1;
    const accumulator = this.shared.accumulator;
    // Under the default importance selectAll adds this tick's priority itself, to the members
    // it keeps (the others' resets to 0): the priority walk over every member is saved.
    const lazy = accumulator.byDistance;
    if (!lazy) accumulator.accumulate(this.view);
    if (this.tookAll && this.selectAll(room, lazy)) return room - this.allBits;
    if (lazy) accumulator.accumulate(this.view);
    return this.selectByPriority(room);
  }

  /**
   * What one candidate (a view member, `slot` its ghost slot or -1) needs this packet: a
   * verdict, and in `judgedBits` its bits (the reference baseline's, charged to the first
   * update, not included).
   */
  private judge(id: number, slot: number): number {
    const world = this.shared.world;
    const latestTick = world.latestTicks[id];
    // The world's flat per-id arrays, not the history objects: this runs per client per candidate.
    if (world.tickedType[id] < 0 || latestTick < 0) return SKIP;
    const table = this.table;
    const s = slot < 0 ? 0 : table.flags[slot] & STATUS;
    const fresh = s === 0 || s === DESTROY_PENDING || table.generation[slot] !== world.tickedGeneration[id];
    if (fresh || s === CREATE_PENDING) {
      if (!fresh && table.lastSentAt[slot] > this.resendAt) return SKIP;
      this.judgedBits =
        1 + this.idBits + this.typeBits + GENERATION_BITS + this.shared.deltas.measure(id, -1);
      return CREATE;
    }
    // Live: write only what changed since the acked baseline.
    const baseTick = table.baselineTick(slot);
    if (latestTick <= baseTick) {
      this.judgedBits = 0;
      return UNCHANGED;
    }
    // A delta needs the baseline in the server's history and in the client's ring: fewer than
    // historyLength - 1 distinct ticks written to it since.
    const delta =
      baseTick >= 0 &&
      world.oldestTicks[id] <= baseTick &&
      ((table.sends[slot] - table.baselineSends[slot]) & SENDS_MASK) < this.historyReach;
    const planTick = delta ? baseTick : -1;
    // Without the repeat form, plus its longest prefix: the most the update can take once sorted.
    this.judgedBits =
      this.updateIdBits +
      baselineBits(world.serverTick, planTick) +
      MAX_REPEAT_PREFIX_BITS +
      this.shared.deltas.measure(id, planTick);
    return delta ? DELTA : ABSOLUTE;
  }

  /** Plans the update `judge` gave `verdict` (DELTA or ABSOLUTE) for. */
  private planUpdate(id: number, slot: number, verdict: number): void {
    this.shared.plan.addUpdate(id, slot);
    const s = this.table.flags[slot] & STATUS;
    this.table.flags[slot] = verdict === DELTA ? s | PLANNED_DELTA : s;
  }

  /** Offers the members in descending priority until the packet is full; returns the bits left. */
  private selectByPriority(room: number): number {
    const { view, shared } = this;
    const selection = shared.selection;
    const plan = shared.plan;
    // The members' ghost slots beside them: no hash lookup per candidate.
    const ghostSlots = view.ghostSlots;
    selection.begin(view, room);
    for (let id = selection.next(); id >= 0; id = selection.next()) {
      const viewSlot = selection.offeredSlot;
      const slot = ghostSlots[viewSlot] - 1;
      const verdict = this.judge(id, slot);
      if (verdict === SKIP) selection.skip();
      else if (verdict === CREATE) {
        if (selection.take(this.judgedBits)) {
          plan.creates.push(id);
          plan.createSlots.push(viewSlot);
        }
      } else if (verdict === UNCHANGED) selection.take(0);
      else if (selection.take(this.judgedBits + (plan.updates.length === 0 ? MAX_REFERENCE_BITS : 0)))
        this.planUpdate(id, slot, verdict);
    }
    // Everything offered and taken: the next packet likely takes all too (selectAll).
    this.tookAll = selection.pending === 0 && selection.misfits === 0;
    return selection.remainingBits;
  }

  /**
   * The same plan as selectByPriority when every member fits, without ordering them: each is
   * judged in slot order, and when their bits total less than `room` all are taken (none
   * refused, so the order does not matter but for the creates, which are written in priority
   * order: sorted here, and on a tie in priority the heap's order decides, so then it gives up).
   * Returns false, having planned nothing, when they do not fit.
   */
  private selectAll(room: number, lazy: boolean): boolean {
    const { view, shared } = this;
    const plan = shared.plan;
    const { ids, ghostSlots, priority, count } = view;
    const accumulator = shared.accumulator;
    const verdicts = plan.verdicts(count);
    const createSlots = plan.createSlots;
    let bits = 0;
    let updates = 0;
    for (let viewSlot = 0; viewSlot < count; viewSlot++) {
      const verdict = this.judge(ids[viewSlot], ghostSlots[viewSlot] - 1);
      verdicts[viewSlot] = verdict;
      if (verdict === SKIP) continue;
      bits += this.judgedBits;
      if (verdict === CREATE) createSlots.push(viewSlot);
      else if (verdict !== UNCHANGED && updates++ === 0) bits += MAX_REFERENCE_BITS;
      if (bits >= room) break;
    }
    if (bits >= room || !this.sortCreates(lazy)) {
      this.tookAll = false;
      createSlots.clear();
      return false;
    }
    this.allBits = bits;
    for (let i = 0; i < createSlots.length; i++) plan.creates.push(ids[createSlots.items[i]]);
    for (let viewSlot = 0; viewSlot < count; viewSlot++) {
      const verdict = verdicts[viewSlot];
      if (verdict === SKIP) {
        if (lazy) priority[viewSlot] += accumulator.weight(view, ids[viewSlot]);
        continue;
      }
      priority[viewSlot] = 0;
      if (verdict === DELTA || verdict === ABSOLUTE)
        this.planUpdate(ids[viewSlot], ghostSlots[viewSlot] - 1, verdict);
    }
    return true;
  }

  /**
   * Sorts the planned creates' view slots by descending priority, this tick's added when `lazy`
   * (as the heap would see it: stored as a float32); false on a tie (the heap's order then).
   */
  private sortCreates(lazy: boolean): boolean {
    const { view, shared } = this;
    const slots = shared.plan.createSlots;
    if (slots.length < 2) return true;
    const keys = shared.plan.keys(view.count);
    const accumulator = shared.accumulator;
    for (let i = 0; i < slots.length; i++) {
      const slot = slots.items[i];
      keys[slot] = lazy
        ? view.priority[slot] + accumulator.weight(view, view.ids[slot])
        : view.priority[slot];
    }
    return sortByPriority(slots, keys);
  }
}

/**
 * Sorts view slots by descending priority (insertion sort: a packet's creates are few once a
 * client joined); false when two priorities are equal (then only the heap knows the order).
 */
function sortByPriority(slots: IdList, priority: Float32Array): boolean {
  const items = slots.items;
  for (let i = 1; i < slots.length; i++) {
    const slot = items[i];
    const key = priority[slot];
    let j = i - 1;
    for (; j >= 0 && priority[items[j]] < key; j--) items[j + 1] = items[j];
    if (j >= 0 && priority[items[j]] === key) return false;
    items[j + 1] = slot;
  }
  return true;
}
