import { WriteStream } from '../serialize/write-stream.js';
import { PreviousChanges } from './entity-delta.js';
import type { EntityLayout } from './entity-layout.js';
import { fieldBits } from './field-bits.js';
import type { GhostShared } from './ghost-sender.js';
import { CREATE_PENDING, DESTROY_PENDING, type GhostTable, PLANNED_DELTA, STATUS } from './ghost-table.js';
import {
  CONFIGURATION_BITS,
  GENERATION_BITS,
  NEWEST_HELD,
  TICK_BITS,
  updateCountBits,
  writeBaseline,
  writeReference,
  writeUpdateId,
} from './ghost-wire.js';
import type { InterestView } from './interest-view.js';
import type { PacketTrace, TracedEntity, TraceVerdict, TraceWaitReason } from './packet-trace.js';

/**
 * One watched client's packet trace (the network inspector). The sender calls it at four points
 * of a packet, behind one null check each, so an unwatched sender pays nothing per entity; all
 * the work here runs only for traced packets: it snapshots the priorities before the choice,
 * then, before the write changes the ghost table, writes the planned state again into a scratch
 * stream to measure each entity's bits, and classifies the members left out.
 */
export class GhostTrace {
  /** Set when the written state's bits differ from the scratch measure (a bug; tests check it). */
  mismatches = 0;
  private readonly scratch = new WriteStream(1 << 16);
  private readonly previous: PreviousChanges;
  private priorities = new Float32Array(0);
  private ids = new Int32Array(0);
  private memberCount = 0;
  private packetRoom = 0;
  private room = 0;
  private remaining = 0;
  private resendAt = 0;
  private closedByMisses = false;
  /** Set by writing(), completed by written(). */
  private pending: {
    tick: number;
    head: number;
    destroys: number;
    creates: number;
    updates: number;
    destroyed: number[];
    entities: TracedEntity[];
  } | null = null;

  constructor(
    private readonly shared: GhostShared,
    private readonly view: InterestView,
    private readonly idBits: number,
    private readonly positions: Float64Array,
    private readonly deliver: (trace: PacketTrace) => void,
    /** Whether each written entity gets its per-field bits (a second walk over its lanes). */
    readonly fields = false,
  ) {
    this.previous = new PreviousChanges(Math.max(0, ...shared.world.types.map((t) => t.layout.lanes.length)));
  }

  /** Before the choice: the packet's room and the room after the budget (bits, head taken). */
  selecting(packetRoom: number, room: number, resendAt: number): void {
    const view = this.view;
    this.packetRoom = packetRoom;
    this.room = room;
    this.resendAt = resendAt;
    this.memberCount = view.count;
    if (this.priorities.length < view.count) {
      this.priorities = new Float32Array(view.count);
      this.ids = new Int32Array(view.count);
    }
    this.priorities.set(view.priority.subarray(0, view.count));
    this.ids.set(view.ids.subarray(0, view.count));
  }

  /** After the choice: the bits it left. */
  selected(remainingBits: number): void {
    this.remaining = remainingBits;
    const selection = this.shared.selection;
    this.closedByMisses = selection.misfits >= selection.maxMisfits;
  }

  /** Before the write (the table still as the choice left it): measures the planned section. */
  writing(configurationAcked: boolean, table: GhostTable): void {
    const { shared, scratch } = this;
    const world = shared.world;
    const plan = shared.plan;
    const capacity = world.capacity;
    const tick = world.serverTick;
    scratch.reset();
    scratch.bits(tick, TICK_BITS);
    const head0 =
      TICK_BITS + 1 + (configurationAcked ? 0 : CONFIGURATION_BITS) + 2 + updateCountBits(capacity);
    const destroyBits = plan.destroys.length * (2 + this.idBits);
    const destroyed = Array.from(plan.destroys.items.subarray(0, plan.destroys.length));
    const entities: TracedEntity[] = [];
    const written = new Set<number>();
    let creates = 0;
    for (let i = 0; i < plan.creates.length; i++) {
      const id = plan.creates.items[i];
      const at = scratch.bitsProcessed;
      scratch.bits(1, 1);
      scratch.int(id, 0, capacity - 1);
      scratch.int(world.tickedType[id], 0, world.types.length - 1);
      scratch.bits(0, GENERATION_BITS);
      shared.deltas.write(scratch, id, -1);
      const bits = scratch.bitsProcessed - at;
      creates += bits;
      written.add(id);
      entities.push(this.withFields(this.entity(id, 'create', bits, null), -1));
    }
    const updates = plan.updates;
    plan.sortUpdates();
    const baseOf = (slot: number): number =>
      (table.flags[slot] & PLANNED_DELTA) === 0 ? -1 : table.baselineTick(slot);
    const held = (slot: number, baseTick: number): boolean =>
      baseTick >= 0 && table.sends[slot] === table.baselineSends[slot];
    // The sender's majority vote (GhostSender.commonBaseline), again.
    let reference = -1;
    let votes = 0;
    for (let i = 0; i < updates.length; i++) {
      const slot = plan.updateSlots[updates.items[i]];
      const key = held(slot, baseOf(slot)) ? NEWEST_HELD : baseOf(slot);
      if (votes === 0) reference = key;
      votes += key === reference ? 1 : -1;
    }
    let referenceBits = 0;
    if (updates.length > 0) {
      const at = scratch.bitsProcessed;
      writeReference(scratch, tick, reference);
      referenceBits = scratch.bitsProcessed - at;
    }
    let updateBits = 0;
    let previousId = -1;
    this.previous.reset();
    for (let i = 0; i < updates.length; i++) {
      const id = updates.items[i];
      const slot = plan.updateSlots[id];
      const baseTick = baseOf(slot);
      const at = scratch.bitsProcessed;
      writeUpdateId(scratch, previousId, id, capacity);
      writeBaseline(scratch, tick, baseTick, reference, held(slot, baseTick));
      shared.deltas.write(scratch, id, baseTick, this.previous);
      previousId = id;
      const bits = scratch.bitsProcessed - at;
      updateBits += bits;
      written.add(id);
      entities.push(
        this.withFields(this.entity(id, baseTick < 0 ? 'absolute' : 'delta', bits, null), baseTick),
      );
    }
    this.judgeRest(table, written, entities);
    this.pending = {
      tick,
      head: head0 + referenceBits,
      destroys: destroyBits,
      creates,
      updates: updateBits,
      destroyed,
      entities,
    };
  }

  /** After the write: the state's bits and the section's, as written. */
  written(stateBits: number, totalBits: number): void {
    const p = this.pending;
    this.pending = null;
    if (p === null) return;
    if (p.head + p.destroys + p.creates + p.updates !== stateBits) this.mismatches++;
    this.deliver({
      client: this.view.client,
      tick: p.tick,
      bits: {
        head: p.head,
        destroys: p.destroys,
        creates: p.creates,
        updates: p.updates,
        events: totalBits - stateBits,
        total: totalBits,
      },
      roomBits: this.room,
      budgetLimited: this.room < this.packetRoom,
      destroyed: p.destroyed,
      entities: p.entities,
    });
  }

  /** The members the plan left out: skipped, unchanged, or waited and why. */
  private judgeRest(table: GhostTable, written: Set<number>, entities: TracedEntity[]): void {
    const world = this.shared.world;
    const deltas = this.shared.deltas;
    for (let k = 0; k < this.memberCount; k++) {
      const id = this.ids[k];
      if (written.has(id)) continue;
      if (world.tickedType[id] < 0 || world.latestTicks[id] < 0) {
        entities.push(this.entity(id, 'skipped', 0, null, k));
        continue;
      }
      const slot = table.find(id);
      const s = slot < 0 ? 0 : table.flags[slot] & STATUS;
      const fresh = s === 0 || s === DESTROY_PENDING || table.generation[slot] !== world.tickedGeneration[id];
      let bits: number;
      if (fresh || s === CREATE_PENDING) {
        if (!fresh && table.lastSentAt[slot] > this.resendAt) {
          entities.push(this.entity(id, 'skipped', 0, null, k));
          continue;
        }
        bits = 1 + this.idBits + GENERATION_BITS + deltas.measure(id, -1);
      } else {
        const baseTick = table.baselineTick(slot);
        if (world.latestTicks[id] <= baseTick) {
          entities.push(this.entity(id, 'unchanged', 0, null, k));
          continue;
        }
        bits = deltas.measure(id, world.oldestTicks[id] <= baseTick ? baseTick : -1);
      }
      const reason: TraceWaitReason =
        bits <= this.remaining && this.closedByMisses
          ? 'misses'
          : this.room < this.packetRoom
            ? 'budget'
            : 'room';
      entities.push(this.entity(id, 'waited', bits, reason, k));
    }
  }

  private entity(
    id: number,
    verdict: TraceVerdict,
    bits: number,
    waited: TraceWaitReason | null,
    member = this.memberOf(id),
  ): TracedEntity {
    const world = this.shared.world;
    const view = this.view;
    const accumulator = this.shared.accumulator;
    const type = world.tickedType[id];
    const p = id * 3;
    const dx = this.positions[p] - view.centerX;
    const dy = this.positions[p + 1] - view.centerY;
    const dz = this.positions[p + 2] - view.centerZ;
    const before = member < 0 ? 0 : this.priorities[member];
    return {
      id,
      type: type < 0 ? '' : world.types[type].name,
      verdict,
      priority: accumulator.byDistance ? before + accumulator.weight(view, id) : before,
      distance: Math.sqrt(dx * dx + dy * dy + dz * dz),
      bits,
      waited,
    };
  }

  /** The entity's per-field bits against `baseTick` (-1: the zero state), when asked for. */
  private withFields(entity: TracedEntity, baseTick: number): TracedEntity {
    if (!this.fields) return entity;
    const world = this.shared.world;
    const history = world.histories[entity.id];
    const state = history?.latest ?? null;
    if (history === null || history === undefined || state === null) return entity;
    const layout = world.types[world.tickedType[entity.id]].layout as EntityLayout<unknown>;
    const base = baseTick < 0 ? layout.zero : history.at(baseTick);
    return base === null ? entity : { ...entity, fields: fieldBits(layout, state, base) };
  }

  private memberOf(id: number): number {
    for (let k = 0; k < this.memberCount; k++) if (this.ids[k] === id) return k;
    return -1;
  }
}
