import type { ScratchList } from '../channels/scratch-list.js';
import type { WriteStream } from '../serialize/write-stream.js';
import type { EventHub, EventRecipient, ServerEvent } from './event-hub.js';
import { eventTickBits, SEQUENCE_BITS, SEQUENCE_MASK, writeEventTick, writePayload } from './event-wire.js';
import { IdList } from './id-list.js';
import type { InterestView } from './interest-view.js';

/** Whether a client has an entity's ghost, as far as an event about it is concerned. */
export const GONE = 0;
export const WAITING = 1;
export const PRESENT = 2;

/** What the events need of the client's ghost sender. */
export interface GhostPresence {
  /**
   * PRESENT when the client holds the ghost of this entity and generation (its create was
   * acked), or, with `creates`, when this packet carries its create; GONE when the entity is no
   * longer in the world or in the client's interest; WAITING otherwise (its create is to come).
   */
  eventPresence(id: number, generation: number, creates: boolean): number;
}

/** Bits the events part always takes: one saying whether the two lists follow. */
export const EVENTS_HEAD_BITS = 1;
/** The two lists' terminators, paid by the first event planned. */
const LISTS_BITS = 2;

const UNWRITTEN = 0;
const UNACKED = 1;
const ACKED = 2;

/**
 * One client's events on the server, written in its ghost section after the state. Reliable ones
 * stay in emit order in a ring: the first `written` carry sequence numbers (from `headSeq`) and
 * are written again every resendInterval until acked; the rest get theirs when first written, in
 * order, so an event dropped before that (its entity went away) leaves no hole in the sequence.
 * One written and then orphaned is sent as "cancelled" so the client moves past it. Unreliable
 * ones are written at most once, in any order, each numbered so a repeated packet cannot
 * dispatch them twice. Planning happens twice a packet: before the entities (events for ghosts
 * the client holds, and global ones, go first) and after (events whose create this packet carries).
 */
export class EventSender implements EventRecipient {
  private rel: (ServerEvent | null)[] = new Array(8).fill(null);
  private relState = new Uint8Array(8);
  private relCancelled = new Uint8Array(8);
  private relPlanned = new Uint8Array(8);
  private relSentAt = new Float64Array(8);
  private head = 0;
  private count = 0;
  private written = 0;
  private headSeq = 0;
  private firstWrites = 0;
  private unr: (ServerEvent | null)[] = [];
  private unrAt: number[] = [];
  private unrPlanned: number[] = [];
  private unrSeq = 0;
  private readonly plannedRel = new IdList(8);
  private readonly plannedUnr = new IdList(8);

  constructor(
    private readonly hub: EventHub,
    private readonly view: InterestView,
    private readonly ghosts: GhostPresence,
    private readonly resendInterval: number,
  ) {}

  get client(): number {
    return this.view.client;
  }

  /** Events planned for the packet being made. */
  get planned(): number {
    return this.plannedRel.length + this.plannedUnr.length;
  }

  relevant(id: number): boolean {
    return this.view.has(id);
  }

  offer(event: ServerEvent): void {
    const hub = this.hub;
    if (event.reliable) {
      if (this.count >= hub.reliableQueueSize) {
        hub.stats.overflowed++;
        hub.onOverflow?.(this.client, event.type);
        return;
      }
      if (this.count === this.rel.length) this.grow();
      const slot = (this.head + this.count) & (this.rel.length - 1);
      this.rel[slot] = event;
      this.relState[slot] = UNWRITTEN;
      this.relCancelled[slot] = 0;
      this.relPlanned[slot] = 0;
      this.count++;
    } else {
      if (this.unr.length >= hub.unreliableQueueSize) {
        hub.stats.droppedExpired++;
        // The oldest makes room, unless the packet being made counts on the indices.
        if (this.plannedUnr.length > 0) return;
        this.unr.shift();
        this.unrAt.shift();
        this.unrPlanned.shift();
      }
      this.unr.push(event);
      this.unrAt.push(-1);
      this.unrPlanned.push(0);
    }
    hub.stats.queued++;
  }

  /**
   * Plans what fits in `room` bits and returns the bits it takes (EVENTS_HEAD_BITS aside: the
   * caller counts them). First call of a packet (`creates` false): starts a new plan; second (`creates`
   * true, after the entities were chosen): adds the events whose create this packet carries.
   */
  plan(now: number, room: number, tick: number, creates: boolean): number {
    if (!creates) {
      this.clearPlan();
      this.compact();
    }
    const used = this.planReliable(now, room, tick, creates, 0);
    return this.planUnreliable(now, room, tick, creates, used);
  }

  private planReliable(now: number, room: number, tick: number, creates: boolean, used: number): number {
    const resendAt = now - this.resendInterval;
    const mask = this.rel.length - 1;
    const cancelledBits = 1 + SEQUENCE_BITS + this.hub.cancelledBits;
    for (let k = 0; k < this.count; k++) {
      const slot = (this.head + k) & mask;
      if (this.relPlanned[slot] !== 0) continue;
      const event = this.rel[slot]!;
      if (k < this.written) {
        if (this.relState[slot] === ACKED || this.relSentAt[slot] > resendAt) continue;
        if (this.relCancelled[slot] === 0 && event.id >= 0) {
          const presence = this.ghosts.eventPresence(event.id, event.generation, creates);
          if (presence === WAITING) continue;
          if (presence === GONE) this.relCancelled[slot] = 1;
        }
        const bits =
          this.listsBits() +
          (this.relCancelled[slot] !== 0
            ? cancelledBits
            : 1 + SEQUENCE_BITS + event.bits + eventTickBits(tick, event.tick));
        if (used + bits > room) break;
        used += bits;
        this.relPlanned[slot] = 1;
        this.plannedRel.push(k);
        continue;
      }
      // First writes go in emit order: the first that must wait holds back the rest.
      if (k !== this.written + this.firstWrites) break;
      if (event.id >= 0) {
        const presence = this.ghosts.eventPresence(event.id, event.generation, creates);
        if (presence === WAITING) break;
        if (presence === GONE) {
          this.removeUnwritten(k);
          this.hub.stats.droppedGone++;
          k--;
          continue;
        }
      }
      const bits = this.listsBits() + 1 + SEQUENCE_BITS + event.bits + eventTickBits(tick, event.tick);
      if (used + bits > room) break;
      used += bits;
      this.relPlanned[slot] = 1;
      this.plannedRel.push(k);
      this.firstWrites++;
    }
    return used;
  }

  private planUnreliable(now: number, room: number, tick: number, creates: boolean, used: number): number {
    const maxAge = this.hub.unreliableMaxAge;
    for (let i = 0; i < this.unr.length; i++) {
      const event = this.unr[i];
      if (event === null || this.unrPlanned[i] !== 0) continue;
      if (this.unrAt[i] < 0) this.unrAt[i] = now;
      else if (now - this.unrAt[i] > maxAge) {
        this.unr[i] = null;
        this.hub.stats.droppedExpired++;
        continue;
      }
      if (event.id >= 0) {
        const presence = this.ghosts.eventPresence(event.id, event.generation, creates);
        if (presence === WAITING) continue;
        if (presence === GONE) {
          this.unr[i] = null;
          this.hub.stats.droppedGone++;
          continue;
        }
      }
      const bits =
        this.listsBits() +
        1 +
        event.bits +
        eventTickBits(tick, event.tick) +
        (this.plannedUnr.length === 0 ? SEQUENCE_BITS : 0);
      if (used + bits > room) continue;
      used += bits;
      this.unrPlanned[i] = 1;
      this.plannedUnr.push(i);
    }
    return used;
  }

  /** Writes the events part of the section: what `plan` chose. */
  write(ws: WriteStream, now: number, tick: number, capacity: number, record: ScratchList<number>): void {
    const hub = this.hub;
    const stats = hub.stats;
    const types = hub.events.length;
    const mask = this.rel.length - 1;
    const planned = this.plannedRel;
    const recordStart = record.length;
    if (planned.length + this.plannedUnr.length === 0) {
      ws.bits(0, 1);
      record.push(0); // the trailer: no reliable sequence in this packet
      return;
    }
    ws.bits(1, 1);
    planned.sort();
    let previous = -1;
    for (let p = 0; p < planned.length; p++) {
      const k = planned.items[p];
      const slot = (this.head + k) & mask;
      const event = this.rel[slot]!;
      const seq = (this.headSeq + k) & SEQUENCE_MASK;
      ws.bits(1, 1);
      if (previous < 0) ws.bits(seq, SEQUENCE_BITS);
      else ws.sequenceRelative(previous, seq);
      previous = seq;
      if (this.relCancelled[slot] !== 0) ws.int(types, 0, types);
      else {
        ws.int(event.typeIndex, 0, types);
        this.writeBody(ws, event, tick, capacity);
      }
      if (k < this.written) stats.resent++;
      else stats.written++;
      this.relState[slot] = UNACKED;
      this.relSentAt[slot] = now;
      this.relPlanned[slot] = 0;
      record.push(seq);
    }
    ws.bits(0, 1);
    this.written += this.firstWrites;
    this.firstWrites = 0;
    planned.clear();
    const unplanned = this.plannedUnr;
    unplanned.sort();
    for (let p = 0; p < unplanned.length; p++) {
      const i = unplanned.items[p];
      const event = this.unr[i]!;
      ws.bits(1, 1);
      ws.int(event.typeIndex, 0, types - 1);
      this.writeBody(ws, event, tick, capacity);
      this.unr[i] = null;
      this.unrPlanned[i] = 0;
      stats.written++;
    }
    ws.bits(0, 1);
    if (unplanned.length > 0) {
      ws.bits(this.unrSeq, SEQUENCE_BITS);
      this.unrSeq = (this.unrSeq + unplanned.length) & SEQUENCE_MASK;
    }
    unplanned.clear();
    this.compact();
    // The trailer tells `acked` where the ghost sender's part of the record ends.
    record.push(record.length - recordStart);
  }

  /** The lists' terminators for the first event planned in a packet, else nothing. */
  private listsBits(): number {
    return this.plannedRel.length + this.plannedUnr.length === 0 ? LISTS_BITS : 0;
  }

  private writeBody(ws: WriteStream, event: ServerEvent, tick: number, capacity: number): void {
    if (event.id >= 0) {
      ws.bits(1, 1);
      ws.int(event.id, 0, capacity - 1);
    } else ws.bits(0, 1);
    writeEventTick(ws, tick, event.tick);
    writePayload(ws, event.type, event.bytes);
  }

  /**
   * The packet whose record ends at `end` was acked: frees the reliable events it carried and
   * returns where the ghost sender's part of the record ends.
   */
  acked(record: readonly number[], start: number, end: number): number {
    const n = record[end - 1];
    const from = end - 1 - n;
    if (!(n >= 0 && from >= start)) return end; // not a record of this sender's (cannot happen)
    for (let i = from; i < end - 1; i++) this.ack(record[i]);
    return from;
  }

  private ack(seq: number): void {
    const k = (seq - this.headSeq) & SEQUENCE_MASK;
    if (k >= this.written) return; // acked before, and freed
    const mask = this.rel.length - 1;
    const slot = (this.head + k) & mask;
    if (this.relState[slot] !== UNACKED) return;
    this.relState[slot] = ACKED;
    this.hub.stats.acked++;
    while (this.written > 0 && this.relState[this.head] === ACKED) {
      this.rel[this.head] = null;
      this.relState[this.head] = UNWRITTEN;
      this.head = (this.head + 1) & mask;
      this.headSeq = (this.headSeq + 1) & SEQUENCE_MASK;
      this.count--;
      this.written--;
    }
  }

  private clearPlan(): void {
    const mask = this.rel.length - 1;
    for (let p = 0; p < this.plannedRel.length; p++)
      this.relPlanned[(this.head + this.plannedRel.items[p]) & mask] = 0;
    for (let p = 0; p < this.plannedUnr.length; p++) this.unrPlanned[this.plannedUnr.items[p]] = 0;
    this.plannedRel.clear();
    this.plannedUnr.clear();
    this.firstWrites = 0;
  }

  /** Drops the unreliable entries written, expired or orphaned (nothing is planned then). */
  private compact(): void {
    let n = 0;
    for (let i = 0; i < this.unr.length; i++) {
      if (this.unr[i] === null) continue;
      this.unr[n] = this.unr[i];
      this.unrAt[n] = this.unrAt[i];
      this.unrPlanned[n] = 0;
      n++;
    }
    this.unr.length = n;
    this.unrAt.length = n;
    this.unrPlanned.length = n;
  }

  /** Removes the reliable entry at offset `k` (not yet written, nothing after it planned). */
  private removeUnwritten(k: number): void {
    const mask = this.rel.length - 1;
    for (let j = k; j < this.count - 1; j++) {
      const to = (this.head + j) & mask;
      const from = (this.head + j + 1) & mask;
      this.rel[to] = this.rel[from];
      this.relState[to] = this.relState[from];
      this.relCancelled[to] = this.relCancelled[from];
      this.relPlanned[to] = this.relPlanned[from];
    }
    const last = (this.head + this.count - 1) & mask;
    this.rel[last] = null;
    this.relPlanned[last] = 0;
    this.count--;
  }

  /** Doubles the reliable ring (up to the queue size's power of two), oldest first at 0. */
  private grow(): void {
    const size = this.rel.length * 2;
    const mask = this.rel.length - 1;
    const rel: (ServerEvent | null)[] = new Array(size).fill(null);
    const state = new Uint8Array(size);
    const cancelled = new Uint8Array(size);
    const planned = new Uint8Array(size);
    const sentAt = new Float64Array(size);
    for (let k = 0; k < this.count; k++) {
      const slot = (this.head + k) & mask;
      rel[k] = this.rel[slot];
      state[k] = this.relState[slot];
      cancelled[k] = this.relCancelled[slot];
      planned[k] = this.relPlanned[slot];
      sentAt[k] = this.relSentAt[slot];
    }
    this.rel = rel;
    this.relState = state;
    this.relCancelled = cancelled;
    this.relPlanned = planned;
    this.relSentAt = sentAt;
    this.head = 0;
  }
}
