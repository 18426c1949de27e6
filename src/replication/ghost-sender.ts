import type { CustomChannel, PacketRecord } from '../channels/channel.js';
import type { ScratchList } from '../channels/scratch-list.js';
import type { ReadStream } from '../serialize/read-stream.js';
import type { WriteStream } from '../serialize/write-stream.js';
import { BandwidthBudget, type BandwidthBudgetOptions } from './budget.js';
import { measureDelta, PreviousChanges, writeDelta } from './entity-delta.js';
import type { EventHub } from './event-hub.js';
import { EVENTS_HEAD_BITS, EventSender, type GhostPresence, GONE, PRESENT, WAITING } from './event-sender.js';
import {
  baselineBits,
  CONFIGURATION_BITS,
  GENERATION_BITS,
  idBits,
  MAX_REFERENCE_BITS,
  maxUpdateIdBits,
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
import type { LaneState } from './lane-state.js';
import { MAX_REPEAT_PREFIX_BITS } from './previous-changes.js';
import type { PriorityAccumulator } from './priority.js';
import type { PrioritySelection } from './priority-selection.js';
import type { ServerWorld } from './world.js';

/** What the server shares with every client's sender. */
export interface GhostShared {
  readonly world: ServerWorld;
  /** The world's configuration fingerprint (configurationHash), sent until a client acks it. */
  readonly configuration: number;
  readonly accumulator: PriorityAccumulator;
  readonly selection: PrioritySelection;
  /** Seconds before an unacked create or destroy is written again. */
  readonly resendInterval: number;
  /** A per-client cap on the section's bytes per packet and rate, or undefined for none. */
  readonly bandwidth: BandwidthBudgetOptions | undefined;
  /** The server's events (emitted, waiting for the tick, offered to each client's `events`). */
  readonly events: EventHub;
  /** Brings interest up to the world's tick (every sender's `left` handled) before a packet. */
  refresh(): void;
  /** The sender's connection ended. */
  closed(sender: GhostSender): void;
}

/** Per (client, id): what the client has or is being told. */
const NONE = 0;
const CREATE_PENDING = 1;
const LIVE = 2;
const DESTROY_PENDING = 3;

/** Record entry kinds (low 2 bits of an entry's first number; the id above them). */
const RECORD_CREATE = 0;
const RECORD_UPDATE = 1;
const RECORD_DESTROY = 2;
/** The section carried the configuration fingerprint (id 0). */
const RECORD_CONFIGURATION = 3;
/** Numbers per record entry: id and kind, epoch, tick, send count. */
const RECORD_STRIDE = 4;

/**
 * One client's ghost section on the server (a custom channel): which entities it has, the newest
 * tick of each it acked (its baseline), and what to write next. Each packet carries, within the
 * channel's budget, pending destroys, then creates and updates in priority order; a create or
 * destroy rides until a packet carrying it is acked (written again every `resendInterval`), an
 * update is written against the acked baseline and never before the create is acked.
 */
export class GhostSender implements CustomChannel, GhostPresence {
  /** This client's events, written after the state in each section (event-sender.ts). */
  readonly events: EventSender;
  private readonly status: Uint8Array;
  private readonly generation: Uint16Array;
  /**
   * Per id: bumped whenever a ghost starts being created or destroyed, and carried in records,
   * so an ack of a packet from before (an old create arriving after a destroy) changes nothing.
   */
  private readonly epoch: Uint32Array;
  /** The newest tick of the entity the client acked (-1: none), and the send count then. */
  private readonly baselineTick: Float64Array;
  private readonly baselineSends: Uint32Array;
  /** Distinct ticks this entity was written at (each leaves one state in the client's ring). */
  private readonly sends: Uint32Array;
  private readonly lastSendTick: Float64Array;
  /** When a create or destroy was last written (seconds), for its resend timer. */
  private readonly lastSentAt: Float64Array;
  private readonly destroys = new IdList(16);
  /** Per pending destroy: 1 when the entity left the world, 0 when it only left this client's interest. */
  private readonly gone: Uint8Array;
  private readonly idBits: number;
  private readonly typeBits: number;
  // The plan `select` made for `writeSelected`.
  private readonly plannedDestroys = new IdList(16);
  private readonly plannedCreates = new IdList(16);
  private readonly plannedUpdates = new IdList(16);
  /** Per planned update (by id): the baseline tick chosen (-1: absolute). */
  private readonly plannedBaseline: Float64Array;
  private planned = 0;
  /** The changed lanes of the update written before, for the repeat bit (entity-delta.ts). */
  private readonly previousChanges: PreviousChanges;
  /** Whether the client acked a section carrying the configuration fingerprint (so it checked it). */
  private configurationAcked = false;
  private readonly budget: BandwidthBudget | null;

  constructor(
    private readonly shared: GhostShared,
    readonly view: InterestView,
  ) {
    const capacity = shared.world.capacity;
    this.status = new Uint8Array(capacity);
    this.generation = new Uint16Array(capacity);
    this.epoch = new Uint32Array(capacity);
    this.gone = new Uint8Array(capacity);
    this.baselineTick = new Float64Array(capacity).fill(-1);
    this.baselineSends = new Uint32Array(capacity);
    this.sends = new Uint32Array(capacity);
    this.lastSendTick = new Float64Array(capacity).fill(-1);
    this.lastSentAt = new Float64Array(capacity);
    this.plannedBaseline = new Float64Array(capacity);
    this.budget = shared.bandwidth === undefined ? null : new BandwidthBudget(shared.bandwidth);
    this.idBits = idBits(capacity);
    this.typeBits = Math.max(0, Math.ceil(Math.log2(shared.world.types.length)));
    this.events = new EventSender(shared.events, view, this, shared.resendInterval);
    this.previousChanges = new PreviousChanges(
      Math.max(0, ...shared.world.types.map((t) => t.layout.lanes.length)),
    );
  }

  // --- events hook: whether the client has an entity's ghost, for an event about it ---
  eventPresence(id: number, generation: number, creates: boolean): number {
    const world = this.shared.world;
    if (world.tickedType[id] < 0 || world.tickedGeneration[id] !== generation || !this.view.has(id))
      return GONE;
    if (this.status[id] === LIVE && this.generation[id] === generation) return PRESENT;
    // A planned create carries the world's generation, which is the event's (checked above).
    if (creates && this.plannedCreates.indexOf(id) >= 0) return PRESENT;
    return WAITING;
  }
  // --- end events hook ---

  /** Entities that left this client's interest (or the world) in the latest interest update. */
  handleLeft(): void {
    const left = this.view.left;
    for (let i = 0; i < left.length; i++) {
      const id = left.items[i];
      const s = this.status[id];
      if (s === NONE || s === DESTROY_PENDING) continue;
      this.status[id] = DESTROY_PENDING;
      const world = this.shared.world;
      this.gone[id] = world.tickedType[id] < 0 || world.tickedGeneration[id] !== this.generation[id] ? 1 : 0;
      this.epoch[id]++;
      this.lastSentAt[id] = Number.NEGATIVE_INFINITY;
      this.destroys.push(id);
    }
  }

  select(now: number, budgetBits: number): number {
    const { shared, view } = this;
    shared.refresh();
    const world = shared.world;
    const tick = world.serverTick;
    this.plannedDestroys.clear();
    this.plannedCreates.clear();
    this.plannedUpdates.clear();
    // The tick, the configuration bit (and fingerprint until acked), two list terminators, the
    // update count and the events' head (the reference baseline is charged to the first update).
    const head =
      TICK_BITS +
      1 +
      (this.configurationAcked ? 0 : CONFIGURATION_BITS) +
      2 +
      updateCountBits(world.capacity) +
      EVENTS_HEAD_BITS;
    let room = budgetBits - head;
    this.planned = 0;
    if (this.budget !== null) {
      this.budget.update(now);
      room = Math.min(room, this.budget.availableBytes() * 8 - head);
    }
    if (room <= 0 || tick === 0) return 0;
    const resendAt = now - shared.resendInterval;
    for (let i = 0; i < this.destroys.length; i++) {
      const id = this.destroys.items[i];
      if (this.lastSentAt[id] > resendAt) continue;
      const bits = 2 + this.idBits;
      if (bits > room) break;
      room -= bits;
      this.plannedDestroys.push(id);
    }
    room -= this.events.plan(now, room, tick, false); // events hook: for ghosts held, and global ones
    shared.accumulator.accumulate(view);
    const selection = shared.selection;
    selection.begin(view, room);
    for (let id = selection.next(); id >= 0; id = selection.next()) {
      const type = world.tickedType[id];
      const history = world.histories[id];
      if (type < 0 || history === null || history.latest === null) {
        selection.skip();
        continue;
      }
      const layout = history.layout;
      const s = this.status[id];
      const fresh = s === NONE || s === DESTROY_PENDING || this.generation[id] !== world.tickedGeneration[id];
      if (fresh || s === CREATE_PENDING) {
        if (!fresh && this.lastSentAt[id] > resendAt) {
          selection.skip();
          continue;
        }
        const bits =
          1 + this.idBits + this.typeBits + GENERATION_BITS + measureDelta(layout, history.latest, null);
        if (selection.take(bits)) this.plannedCreates.push(id);
        continue;
      }
      // Live: write only what changed since the acked baseline.
      if (history.latestTick <= this.baselineTick[id]) {
        selection.take(0);
        continue;
      }
      const baseline = this.baselineFor(id);
      const baseTick = baseline === null ? -1 : this.baselineTick[id];
      // Without the repeat form, plus its longest prefix: the most the update can take once sorted.
      const bits =
        maxUpdateIdBits(world.capacity) +
        baselineBits(tick, baseTick) +
        MAX_REPEAT_PREFIX_BITS +
        measureDelta(layout, history.latest, baseline) +
        (this.plannedUpdates.length === 0 ? MAX_REFERENCE_BITS : 0);
      if (selection.take(bits)) {
        this.plannedUpdates.push(id);
        this.plannedBaseline[id] = baseTick;
      }
    }
    this.events.plan(now, selection.remainingBits, tick, true); // events hook: for the creates planned
    this.planned =
      this.plannedDestroys.length +
      this.plannedCreates.length +
      this.plannedUpdates.length +
      this.events.planned;
    return this.planned;
  }

  /**
   * The state the client still holds for `id` to take a delta against, or null (absolute): its
   * acked tick, if the server's history still reaches it and fewer than historyLength - 1
   * distinct ticks were written since (so the client's ring of historyLength still has it).
   */
  private baselineFor(id: number): LaneState | null {
    const tick = this.baselineTick[id];
    if (tick < 0) return null;
    if (this.sends[id] - this.baselineSends[id] >= this.shared.world.historyLength - 1) return null;
    return this.shared.world.histories[id]!.at(tick);
  }

  writeSelected(ws: WriteStream, now: number, record: ScratchList<number>): void {
    const world = this.shared.world;
    const tick = world.serverTick;
    const capacity = world.capacity;
    const start = ws.bitsProcessed;
    ws.bits(tick, TICK_BITS);
    if (this.configurationAcked) ws.bits(0, 1);
    else {
      ws.bits(1, 1);
      ws.bits(this.shared.configuration, CONFIGURATION_BITS);
      this.push(record, 0, RECORD_CONFIGURATION, tick, 0);
    }
    const destroys = this.plannedDestroys;
    for (let i = 0; i < destroys.length; i++) {
      const id = destroys.items[i];
      ws.bits(1, 1);
      ws.int(id, 0, capacity - 1);
      ws.bits(this.gone[id], 1);
      this.lastSentAt[id] = now;
      this.push(record, id, RECORD_DESTROY, tick, 0);
    }
    ws.bits(0, 1);
    const creates = this.plannedCreates;
    for (let i = 0; i < creates.length; i++) {
      const id = creates.items[i];
      const history = world.histories[id]!;
      const generation = world.tickedGeneration[id];
      ws.bits(1, 1);
      ws.int(id, 0, capacity - 1);
      ws.int(world.tickedType[id], 0, world.types.length - 1);
      ws.bits(generation, GENERATION_BITS);
      writeDelta(ws, history.layout, history.latest!, null);
      if (this.status[id] !== CREATE_PENDING || this.generation[id] !== generation) {
        // A new ghost for this client: forget what it had under this id.
        if (this.status[id] === DESTROY_PENDING) this.destroys.swapRemove(this.destroys.indexOf(id));
        this.status[id] = CREATE_PENDING;
        this.epoch[id]++;
        this.generation[id] = generation;
        this.baselineTick[id] = -1;
        this.sends[id] = 0;
        this.lastSendTick[id] = -1;
      }
      this.lastSentAt[id] = now;
      this.push(record, id, RECORD_CREATE, tick, this.countSend(id, tick));
    }
    ws.bits(0, 1);
    const updates = this.plannedUpdates;
    updates.sort();
    writeUpdateCount(ws, updates.length, capacity);
    const reference = this.commonBaseline();
    if (updates.length > 0) writeReference(ws, tick, reference);
    let previous = -1;
    this.previousChanges.reset();
    for (let i = 0; i < updates.length; i++) {
      const id = updates.items[i];
      const history = world.histories[id]!;
      const baseTick = this.plannedBaseline[id];
      writeUpdateId(ws, previous, id, capacity);
      writeBaseline(ws, tick, baseTick, reference, this.newestHeld(id, baseTick));
      const baseline = baseTick < 0 ? null : history.at(baseTick);
      writeDelta(ws, history.layout, history.latest!, baseline, this.previousChanges);
      previous = id;
      this.push(record, id, RECORD_UPDATE, tick, this.countSend(id, tick));
    }
    this.events.write(ws, now, tick, capacity, record); // events hook: after the state they go with
    this.planned = 0;
    this.budget?.spend(Math.ceil((ws.bitsProcessed - start) / 8));
  }

  /**
   * Whether the client's newest state of `id` is the baseline: every write since the acked one
   * was acked too, so it cannot hold a newer one (called before this packet's write is counted).
   */
  private newestHeld(id: number, baseTick: number): boolean {
    return baseTick >= 0 && this.sends[id] === this.baselineSends[id];
  }

  /**
   * The baseline most planned updates share (NEWEST_HELD for those whose newest state the client
   * holds, else the tick), found by majority vote: O(updates), no allocation.
   */
  private commonBaseline(): number {
    const updates = this.plannedUpdates;
    let candidate = -1;
    let votes = 0;
    for (let i = 0; i < updates.length; i++) {
      const id = updates.items[i];
      const baseTick = this.plannedBaseline[id];
      const key = this.newestHeld(id, baseTick) ? NEWEST_HELD : baseTick;
      if (votes === 0) candidate = key;
      votes += key === candidate ? 1 : -1;
    }
    return candidate;
  }

  /** Counts a write of `id` at `tick` (one per distinct tick) and returns the count. */
  private countSend(id: number, tick: number): number {
    if (this.lastSendTick[id] !== tick) {
      this.lastSendTick[id] = tick;
      this.sends[id]++;
    }
    return this.sends[id];
  }

  private push(record: ScratchList<number>, id: number, kind: number, tick: number, sends: number): void {
    record.push(id * 4 + kind);
    record.push(this.epoch[id]);
    record.push(tick);
    record.push(sends);
  }

  acked(record: PacketRecord, start: number, end: number): void {
    const ghostsEnd = this.events.acked(record, start, end); // events hook: their part ends the record
    for (let k = start; k + RECORD_STRIDE <= ghostsEnd; k += RECORD_STRIDE) {
      const id = record[k] >>> 2;
      const kind = record[k] & 3;
      if (kind === RECORD_CONFIGURATION) {
        this.configurationAcked = true;
        continue;
      }
      if (id >= this.status.length || this.epoch[id] !== record[k + 1]) continue;
      const s = this.status[id];
      if (kind === RECORD_DESTROY) {
        if (s === DESTROY_PENDING) {
          this.status[id] = NONE;
          this.destroys.swapRemove(this.destroys.indexOf(id));
        }
        continue;
      }
      if (s !== CREATE_PENDING && s !== LIVE) continue;
      // The create or update reached the client: it holds that tick's state from now on.
      this.status[id] = LIVE;
      const tick = record[k + 2];
      if (tick > this.baselineTick[id]) {
        this.baselineTick[id] = tick;
        this.baselineSends[id] = record[k + 3];
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
