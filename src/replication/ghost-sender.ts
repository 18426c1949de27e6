import type { CustomChannel, PacketRecord } from '../channels/channel.js';
import type { ScratchList } from '../channels/scratch-list.js';
import type { ReadStream } from '../serialize/read-stream.js';
import type { WriteStream } from '../serialize/write-stream.js';
import { BandwidthBudget, type BandwidthBudgetOptions } from './bandwidth-budget.js';
import { PreviousChanges } from './entity-delta.js';
import type { EventHub } from './event-hub.js';
import {
  GONE as EVENT_GONE,
  EVENTS_HEAD_BITS,
  EventSender,
  type GhostPresence,
  PRESENT,
  WAITING,
} from './event-sender.js';
import { FlowControl, type FlowControlOptions } from './flow-control.js';
import type { GhostPlan } from './ghost-plan.js';
import { GhostSelector } from './ghost-selector.js';
import {
  CREATE_PENDING,
  DESTROY_PENDING,
  GhostTable,
  GONE,
  LIVE,
  PLANNED_DELTA,
  STATUS,
} from './ghost-table.js';
import type { GhostTrace } from './ghost-trace.js';
import {
  CONFIGURATION_BITS,
  GENERATION_BITS,
  idBits,
  NEWEST_HELD,
  TICK_BITS,
  updateCountBits,
  writeBaseline,
  writeReference,
  writeUpdateCount,
  writeUpdateId,
} from './ghost-wire.js';
import { IdList } from './id-list.js';
import type { InterestView } from './interest-view.js';
import type { PriorityAccumulator } from './priority-accumulator.js';
import type { PrioritySelection } from './priority-selection.js';
import type { ServerWorld } from './server-world.js';
import type { SharedDeltas } from './shared-deltas.js';

/** What the server shares with every client's sender. */
export interface GhostShared {
  readonly world: ServerWorld;
  /** The world's configuration fingerprint (configurationHash), sent until a client acks it. */
  readonly configuration: number;
  readonly accumulator: PriorityAccumulator;
  readonly selection: PrioritySelection;
  /** The plan between a sender's select and writeSelected, shared by every sender. */
  readonly plan: GhostPlan;
  /** Deltas measured and encoded once per tick and baseline for every sender. */
  readonly deltas: SharedDeltas;
  /** Seconds before an unacked create or destroy is written again. */
  readonly resendInterval: number;
  /** A per-client cap on the section's bytes per packet and rate, or undefined for none. */
  readonly bandwidth: BandwidthBudgetOptions | undefined;
  /** Good / bad flow modes setting each client's rate from its link, or undefined for a fixed rate. */
  readonly flow: FlowControlOptions | undefined;
  /** The server's events (emitted, waiting for the tick, offered to each client's `events`). */
  readonly events: EventHub;
  /** Brings interest up to the world's tick (every sender's `left` handled) before a packet. */
  refresh(): void;
  /** The sender's connection ended. */
  closed(sender: GhostSender): void;
}

/** Record entry kinds (low 2 bits of an entry's first number; the ghost table slot above them). */
const RECORD_CREATE = 0;
const RECORD_UPDATE = 1;
const RECORD_DESTROY = 2;
/** The section carried the configuration fingerprint (id 0). */
const RECORD_CONFIGURATION = 3;
/**
 * A packet's record: the section's tick, then two numbers per entry: (slot × 4 + kind) × 2^16 +
 * send count, and the epoch. The slot, not the id, saves the ack a hash lookup per entry: a slot
 * keeps its epoch from create to removal and a new ghost takes a new one, so a matching epoch on
 * an occupied slot means the same ghost. Records live until their packet's ack, one array per
 * packet, so they are kept small.
 */
const RECORD_STRIDE = 2;
const SENDS_SPAN = 0x10000;

/**
 * One client's ghost section on the server (a custom channel): which entities it has, the newest
 * tick of each it acked (its baseline), and what to write next. Each packet carries, within the
 * channel's budget, pending destroys, then creates and updates in priority order; a create or
 * destroy rides until a packet carrying it is acked (written again every `resendInterval`), an
 * update is written against the acked baseline and never before the create is acked. Its memory
 * follows the ghosts the client has (a GhostTable), not the world's capacity.
 */
export class GhostSender implements CustomChannel, GhostPresence {
  /** This client's events, written after the state in each section (event-sender.ts). */
  readonly events: EventSender;
  private readonly table: GhostTable;
  /** Ids with a pending destroy. */
  private readonly destroys = new IdList(4);
  /** The last epoch handed out: every create or destroy takes a new one, unique in this sender. */
  private epochs = 0;
  private readonly idBits: number;
  private readonly typeBits: number;
  /** Whether the client acked a section carrying the configuration fingerprint (so it checked it). */
  private configurationAcked = false;
  private readonly budget: BandwidthBudget | null;
  /** The client's flow modes (with `flow` in the options), which set the budget's rate. */
  readonly flow: FlowControl | null;
  /**
   * Takes the link's round trip and loss before each packet (CustomChannel.link): present only
   * with flow modes, so a fixed-rate sender costs the connection nothing per packet.
   */
  readonly link?: (rtt: number, packetLoss: number, now: number) => void;
  /** The changed lanes of the update written before, for the repeat prefix (entity-delta.ts). */
  private readonly previousChanges: PreviousChanges;
  /** Plans the creates and updates of each packet (ghost-selector.ts). */
  private readonly selector: GhostSelector;
  /**
   * The inspector's trace of this client's packets (ghost-trace.ts), or null: then a packet pays
   * one null check per step (never per entity) and allocates nothing.
   */
  trace: GhostTrace | null = null;

  constructor(
    private readonly shared: GhostShared,
    readonly view: InterestView,
  ) {
    const capacity = shared.world.capacity;
    this.table = new GhostTable(capacity);
    view.attachGhostTable(this.table);
    const budget =
      shared.bandwidth === undefined && shared.flow === undefined
        ? null
        : new BandwidthBudget(shared.bandwidth);
    this.budget = budget;
    this.flow = null;
    if (budget !== null && shared.flow !== undefined) {
      const flow = new FlowControl({ goodKbps: budget.kbps, ...shared.flow });
      budget.kbps = flow.kbps;
      this.flow = flow;
      this.link = (rtt, packetLoss, now) => {
        flow.update(now, rtt, packetLoss);
        budget.kbps = flow.kbps;
      };
    }
    this.idBits = idBits(capacity);
    this.typeBits = Math.max(0, Math.ceil(Math.log2(shared.world.types.length)));
    this.selector = new GhostSelector(shared, view, this.table, this.idBits, this.typeBits);
    this.events = new EventSender(shared.events, view, this, shared.resendInterval);
    this.previousChanges = new PreviousChanges(
      Math.max(0, ...shared.world.types.map((t) => t.layout.lanes.length)),
    );
  }

  // --- events hook: whether the client has an entity's ghost, for an event about it ---
  eventPresence(id: number, generation: number, creates: boolean): number {
    const world = this.shared.world;
    if (world.tickedType[id] < 0 || world.tickedGeneration[id] !== generation || !this.view.has(id))
      return EVENT_GONE;
    const slot = this.table.find(id);
    if (slot >= 0 && (this.table.flags[slot] & STATUS) === LIVE && this.table.generation[slot] === generation)
      return PRESENT;
    // A planned create carries the world's generation, which is the event's (checked above).
    if (creates && this.shared.plan.owner === this && this.shared.plan.creates.indexOf(id) >= 0)
      return PRESENT;
    return WAITING;
  }
  // --- end events hook ---

  /** Ghosts this client has or is being told about (creates and destroys in flight included). */
  get ghostCount(): number {
    return this.table.size;
  }

  /** Bytes of the typed arrays this sender holds (its view not included). */
  get byteLength(): number {
    return this.table.byteLength + this.destroys.items.byteLength;
  }

  /** Entities that left this client's interest (or the world) in the latest interest update. */
  handleLeft(): void {
    const left = this.view.left;
    const table = this.table;
    const world = this.shared.world;
    for (let i = 0; i < left.length; i++) {
      const id = left.items[i];
      const slot = table.find(id);
      if (slot < 0 || (table.flags[slot] & STATUS) === DESTROY_PENDING) continue;
      const gone = world.tickedType[id] < 0 || world.tickedGeneration[id] !== table.generation[slot];
      table.flags[slot] = DESTROY_PENDING | (gone ? GONE : 0);
      table.epoch[slot] = this.nextEpoch();
      table.lastSentAt[slot] = Number.NEGATIVE_INFINITY;
      this.destroys.push(id);
    }
  }

  select(now: number, budgetBits: number): number {
    const { shared, table } = this;
    shared.refresh();
    const world = shared.world;
    const tick = world.serverTick;
    const plan = shared.plan;
    plan.clear(this);
    // The tick, the configuration bit (and fingerprint until acked), two list terminators, the
    // update count and the events' head (the reference baseline is charged to the first update).
    const head =
      TICK_BITS +
      1 +
      (this.configurationAcked ? 0 : CONFIGURATION_BITS) +
      2 +
      updateCountBits(world.capacity) +
      EVENTS_HEAD_BITS;
    const packetRoom = budgetBits - head;
    let room = packetRoom;
    if (this.budget !== null) {
      this.budget.update(now);
      room = Math.min(room, this.budget.availableBytes() * 8 - head);
    }
    if (room <= 0 || tick === 0) return 0;
    const resendAt = now - shared.resendInterval;
    for (let i = 0; i < this.destroys.length; i++) {
      const id = this.destroys.items[i];
      if (table.lastSentAt[table.find(id)] > resendAt) continue;
      const bits = 2 + this.idBits;
      if (bits > room) break;
      room -= bits;
      plan.destroys.push(id);
    }
    room -= this.events.plan(now, room, tick, false); // events hook: for ghosts held, and global ones
    if (this.trace !== null) this.trace.selecting(packetRoom, room, resendAt); // inspector hook
    const remainingBits = this.selector.select(room, resendAt);
    if (this.trace !== null) this.trace.selected(remainingBits); // inspector hook
    this.events.plan(now, remainingBits, tick, true); // events hook: for the creates planned
    return plan.destroys.length + plan.creates.length + plan.updates.length + this.events.planned;
  }

  writeSelected(ws: WriteStream, now: number, record: ScratchList<number>): void {
    const world = this.shared.world;
    const plan = this.shared.plan;
    if (plan.owner !== this)
      throw new Error('GhostSender.writeSelected: select() was not called just before');
    plan.owner = null;
    if (this.trace !== null) this.trace.writing(this.configurationAcked, this.table); // inspector hook
    const tick = world.serverTick;
    const capacity = world.capacity;
    const start = ws.bitsProcessed;
    const recordStart = record.length;
    record.push(tick);
    ws.bits(tick, TICK_BITS);
    if (this.configurationAcked) ws.bits(0, 1);
    else {
      ws.bits(1, 1);
      ws.bits(this.shared.configuration, CONFIGURATION_BITS);
      this.push(record, 0, RECORD_CONFIGURATION, 0, 0);
    }
    const destroys = plan.destroys;
    for (let i = 0; i < destroys.length; i++) {
      const id = destroys.items[i];
      const slot = this.table.find(id);
      ws.bits(1, 1);
      ws.int(id, 0, capacity - 1);
      ws.bits((this.table.flags[slot] & GONE) === 0 ? 0 : 1, 1);
      this.table.lastSentAt[slot] = now;
      this.push(record, slot, RECORD_DESTROY, this.table.epoch[slot], 0);
    }
    ws.bits(0, 1);
    const creates = plan.creates;
    for (let i = 0; i < creates.length; i++) {
      const id = creates.items[i];
      const generation = world.tickedGeneration[id];
      ws.bits(1, 1);
      ws.int(id, 0, capacity - 1);
      ws.int(world.tickedType[id], 0, world.types.length - 1);
      ws.bits(generation, GENERATION_BITS);
      this.shared.deltas.write(ws, id, -1);
      const viewSlot = plan.createSlots.items[i];
      let slot = this.view.ghostSlots[viewSlot] - 1;
      if (slot < 0) {
        slot = this.table.insert(id);
        this.view.ghostSlots[viewSlot] = slot + 1;
      } else if ((this.table.flags[slot] & STATUS) === DESTROY_PENDING)
        this.destroys.swapRemove(this.destroys.indexOf(id));
      // Read the table's columns after the insert: it may have grown them.
      const table = this.table;
      if ((table.flags[slot] & STATUS) !== CREATE_PENDING || table.generation[slot] !== generation) {
        // A new ghost for this client: forget what it had under this id.
        table.flags[slot] = CREATE_PENDING;
        table.epoch[slot] = this.nextEpoch();
        table.generation[slot] = generation;
        table.setBaselineTick(slot, -1);
        table.sends[slot] = 0;
        table.lastSendTick[slot] = tick + 1; // not this tick: the count below starts at 1
      }
      table.lastSentAt[slot] = now;
      this.push(record, slot, RECORD_CREATE, table.epoch[slot], this.countSend(slot, tick));
    }
    ws.bits(0, 1);
    const updates = plan.updates;
    plan.sortUpdates();
    const updateSlots = plan.updateSlots;
    const table = this.table;
    writeUpdateCount(ws, updates.length, capacity);
    const reference = this.commonBaseline();
    if (updates.length > 0) writeReference(ws, tick, reference);
    let previous = -1;
    const previousChanges = this.previousChanges;
    previousChanges.reset();
    for (let i = 0; i < updates.length; i++) {
      const id = updates.items[i];
      const slot = updateSlots[id];
      const flags = table.flags[slot];
      const baseTick = (flags & PLANNED_DELTA) === 0 ? -1 : table.baselineTick(slot);
      table.flags[slot] = flags & ~PLANNED_DELTA;
      writeUpdateId(ws, previous, id, capacity);
      writeBaseline(ws, tick, baseTick, reference, this.newestHeld(slot, baseTick));
      this.shared.deltas.write(ws, id, baseTick, previousChanges);
      previous = id;
      this.push(record, slot, RECORD_UPDATE, table.epoch[slot], this.countSend(slot, tick));
    }
    const ghostsEnd = record.length;
    const stateEnd = ws.bitsProcessed;
    this.events.write(ws, now, tick, capacity, record); // events hook: after the state they go with
    // Nothing for the ack to confirm (the tick, and an events trailer of 0): leave no record (the
    // channel's part is then dropped).
    if (ghostsEnd === recordStart + 1 && record.length === ghostsEnd + 1 && record.items[ghostsEnd] === 0)
      record.length = recordStart;
    this.budget?.spend(Math.ceil((ws.bitsProcessed - start) / 8));
    if (this.trace !== null) this.trace.written(stateEnd - start, ws.bitsProcessed - start); // inspector hook
  }

  /** @internal The ghost table (the inspector's whoSees and trace). */
  get ghosts(): GhostTable {
    return this.table;
  }

  /** @internal Bits of an entity id on this sender's wire. */
  get entityIdBits(): number {
    return this.idBits;
  }

  /**
   * Whether the client's newest state of the slot's entity is the baseline: every write since the
   * acked one was acked too, so it cannot hold a newer one (called before this packet's write is
   * counted).
   */
  private newestHeld(slot: number, baseTick: number): boolean {
    return baseTick >= 0 && this.table.sends[slot] === this.table.baselineSends[slot];
  }

  /**
   * The baseline most planned updates share (NEWEST_HELD for those whose newest state the client
   * holds, else the tick), found by majority vote: O(updates), no allocation.
   */
  private commonBaseline(): number {
    const { updates, updateSlots } = this.shared.plan;
    const table = this.table;
    let candidate = -1;
    let votes = 0;
    for (let i = 0; i < updates.length; i++) {
      const slot = updateSlots[updates.items[i]];
      const baseTick = (table.flags[slot] & PLANNED_DELTA) === 0 ? -1 : table.baselineTick(slot);
      const key = this.newestHeld(slot, baseTick) ? NEWEST_HELD : baseTick;
      if (votes === 0) candidate = key;
      votes += key === candidate ? 1 : -1;
    }
    return candidate;
  }

  private nextEpoch(): number {
    // Never 0: a free ghost slot's epoch (GhostTable.remove).
    this.epochs = (this.epochs + 1) >>> 0 || 1;
    return this.epochs;
  }

  /** Counts a write of the slot's entity at `tick` (one per distinct tick) and returns the count. */
  private countSend(slot: number, tick: number): number {
    const table = this.table;
    if (table.lastSendTick[slot] !== tick >>> 0) {
      table.lastSendTick[slot] = tick;
      table.sends[slot]++;
    }
    return table.sends[slot];
  }

  private push(record: ScratchList<number>, slot: number, kind: number, epoch: number, sends: number): void {
    record.push((slot * 4 + kind) * SENDS_SPAN + sends);
    record.push(epoch);
  }

  acked(record: PacketRecord, start: number, end: number): void {
    const table = this.table;
    const ghostsEnd = this.events.acked(record, start, end); // events hook: their part ends the record
    if (ghostsEnd - start < 1 + RECORD_STRIDE) return;
    const tick = record[start];
    for (let k = start + 1; k + RECORD_STRIDE <= ghostsEnd; k += RECORD_STRIDE) {
      const head = Math.floor(record[k] / SENDS_SPAN);
      const slot = head >>> 2;
      const kind = head & 3;
      if (kind === RECORD_CONFIGURATION) {
        this.configurationAcked = true;
        continue;
      }
      // A free slot's epoch is 0, which no create or destroy takes (a resent destroy's second ack
      // finds it so): the ids column is not loaded per entry.
      if (slot >= table.epoch.length || table.epoch[slot] !== record[k + 1]) continue;
      const s = table.flags[slot] & STATUS;
      if (kind === RECORD_DESTROY) {
        if (s === DESTROY_PENDING) {
          // The client dropped the ghost: its slot is free for another.
          const id = table.ids[slot];
          this.destroys.swapRemove(this.destroys.indexOf(id));
          table.remove(slot);
          // Back in view before the ack (rare): its member slot no longer has a ghost.
          if (this.view.isMember(id)) this.view.ghostSlots[this.view.slotOf(id)] = 0;
        }
        continue;
      }
      if (s !== CREATE_PENDING && s !== LIVE) continue;
      // The create or update reached the client: it holds that tick's state from now on.
      table.flags[slot] = (table.flags[slot] & ~STATUS) | LIVE;
      if (tick > table.baselineTick(slot)) {
        table.setBaselineTick(slot, tick);
        table.baselineSends[slot] = record[k] - head * SENDS_SPAN;
      }
    }
  }

  close(): void {
    this.shared.closed(this);
  }

  /** The server never reads a ghost section. */
  read(rs: ReadStream): boolean {
    rs.fail('the server does not take a ghost section');
    return false;
  }

  apply(): void {}
}
