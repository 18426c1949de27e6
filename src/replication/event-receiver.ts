import type { ReadStream } from '../serialize/read-stream.js';
import type { Ghost } from './client-mirror.js';
import { type AnyEventType, type EventHandler, receivedEvent } from './event.js';
import {
  RELIABLE_WINDOW,
  readEventTick,
  readPayload,
  SEQUENCE_BITS,
  SEQUENCE_MASK,
  UNRELIABLE_MEMORY,
} from './event-wire.js';
import { IdList } from './id-list.js';

/** Whether the client will hold a ghost once the section being read is applied. */
export interface SectionGhosts {
  holdsAfter(id: number): boolean;
}

/** The ghosts the client holds (after a section is applied). */
export interface GhostLookup {
  ghost(id: number): Ghost | null;
}

/** Events of one list of a section, staged until the packet is known good. */
class Staged {
  readonly type = new IdList(8);
  readonly entity = new IdList(8);
  readonly seq = new IdList(8);
  ticks: number[] = [];
  values: unknown[] = [];

  clear(): void {
    this.type.clear();
    this.entity.clear();
    this.seq.clear();
    // Values are dropped with the list so a section's payloads are not kept alive.
    this.values.length = 0;
    this.ticks.length = 0;
  }

  push(type: number, entity: number, seq: number, tick: number, value: unknown): void {
    this.type.push(type);
    this.entity.push(entity);
    this.seq.push(seq);
    this.ticks.push(tick);
    this.values.push(value);
  }
}

const WINDOW_MASK = RELIABLE_WINDOW - 1;

/**
 * The client's side of events: reads a section's events part into staged lists without
 * dispatching anything, refusing the section (with `rs.fail(reason)`) on an unknown type, a bad
 * payload or tick, a reliable sequence outside the window, or an entity event for a ghost the
 * client will not hold after the section. Once the packet is applied, reliable events are
 * delivered exactly once in sequence order (a bounded window holds the ones that arrive ahead of
 * a gap), unreliable ones at most once; an entity event whose ghost went away (or was replaced)
 * before it could be delivered is dropped and counted.
 */
export class EventReceiver {
  /** Events dispatched, and events dropped (ghost gone, or cancelled by the server). */
  delivered = 0;
  dropped = 0;
  private readonly reliable = new Staged();
  private readonly unreliable = new Staged();
  private unreliableBase = 0;
  /** The next reliable sequence to deliver, and those received ahead of it (by sequence mod window). */
  private next = 0;
  private readonly bufferSeq = new Int32Array(RELIABLE_WINDOW).fill(-1);
  private readonly bufferType = new Int32Array(RELIABLE_WINDOW);
  private readonly bufferEntity = new Int32Array(RELIABLE_WINDOW);
  private readonly bufferGeneration = new Int32Array(RELIABLE_WINDOW);
  private readonly bufferTick = new Float64Array(RELIABLE_WINDOW);
  private readonly bufferValue: unknown[] = new Array(RELIABLE_WINDOW).fill(undefined);
  /** Unreliable sequences dispatched lately (by sequence mod memory), and the newest. */
  private readonly seenUnreliable = new Int32Array(UNRELIABLE_MEMORY).fill(-1);
  private newestUnreliable = -1;
  private readonly scratch = { bytes: new Uint8Array(64) };

  constructor(
    private readonly events: readonly AnyEventType[],
    private readonly capacity: number,
  ) {}

  /** A new connection: sequences start again. */
  reset(): void {
    this.next = 0;
    this.bufferSeq.fill(-1);
    this.bufferValue.fill(undefined);
    this.seenUnreliable.fill(-1);
    this.newestUnreliable = -1;
    this.reliable.clear();
    this.unreliable.clear();
  }

  /** Parses the events part of a section of `tick`; false (the stream failed) when it is bad. */
  read(rs: ReadStream, tick: number, ghosts: SectionGhosts): boolean {
    this.reliable.clear();
    this.unreliable.clear();
    if (!rs.bool(false)) return rs.ok;
    const count = this.events.length;
    let previous = -1;
    while (rs.ok && rs.bool(false)) {
      const seq = previous < 0 ? rs.bits(0, SEQUENCE_BITS) : rs.sequenceRelative(previous, 0);
      if (!rs.ok) return false;
      previous = seq;
      const ahead = (seq - this.next) & SEQUENCE_MASK;
      // New ones are less than a window ahead; resends of delivered ones at most a window behind.
      if (ahead >= RELIABLE_WINDOW && ahead < SEQUENCE_MASK + 1 - RELIABLE_WINDOW)
        return this.refuse(rs, `reliable event ${seq} outside the window from ${this.next}`);
      const type = rs.int(0, 0, count);
      if (!rs.ok) return false;
      if (type === count)
        this.reliable.push(type, -1, seq, 0, undefined); // cancelled by the server
      else if (!this.readEvent(rs, tick, ghosts, this.reliable, type, seq)) return false;
    }
    while (rs.ok && rs.bool(false)) {
      if (count === 0) return this.refuse(rs, 'an event, but no event types are declared');
      const type = rs.int(0, 0, count - 1);
      if (!rs.ok || !this.readEvent(rs, tick, ghosts, this.unreliable, type, 0)) return false;
    }
    if (!rs.ok) return false;
    if (this.unreliable.type.length > 0) this.unreliableBase = rs.bits(0, SEQUENCE_BITS);
    else if (this.reliable.type.length === 0) return this.refuse(rs, 'an events part without events');
    return rs.ok;
  }

  private readEvent(
    rs: ReadStream,
    tick: number,
    ghosts: SectionGhosts,
    staged: Staged,
    typeIndex: number,
    seq: number,
  ): boolean {
    const type = this.events[typeIndex];
    const entity = rs.bits(0, 1) === 1 ? rs.int(0, 0, this.capacity - 1) : -1;
    const eventTick = readEventTick(rs, tick);
    if (!rs.ok) return false;
    if (entity >= 0 && !ghosts.holdsAfter(entity))
      return this.refuse(rs, `event ${type.name} about ghost ${entity}, which the client does not have`);
    const value = readPayload(rs, type, this.scratch);
    if (!rs.ok) return false;
    staged.push(typeIndex, entity, seq, eventTick, value);
    return true;
  }

  /** Dispatches what `read` staged: the packet was applied, so the ghosts are the section's. */
  apply(ghosts: GhostLookup, onEvent: EventHandler | undefined): void {
    const r = this.reliable;
    for (let i = 0; i < r.type.length; i++) {
      const seq = r.seq.items[i];
      if (((seq - this.next) & SEQUENCE_MASK) >= RELIABLE_WINDOW) continue; // delivered before
      const slot = seq & WINDOW_MASK;
      if (this.bufferSeq[slot] === seq) continue; // already waiting
      const entity = r.entity.items[i];
      this.bufferSeq[slot] = seq;
      this.bufferType[slot] = r.type.items[i];
      this.bufferEntity[slot] = entity;
      this.bufferGeneration[slot] = entity >= 0 ? (ghosts.ghost(entity)?.generation ?? -1) : 0;
      this.bufferTick[slot] = r.ticks[i];
      this.bufferValue[slot] = r.values[i];
    }
    for (
      let slot = this.next & WINDOW_MASK;
      this.bufferSeq[slot] === this.next;
      slot = this.next & WINDOW_MASK
    ) {
      const value = this.bufferValue[slot];
      this.bufferSeq[slot] = -1;
      this.bufferValue[slot] = undefined;
      this.next = (this.next + 1) & SEQUENCE_MASK;
      const type = this.bufferType[slot];
      if (type === this.events.length) this.dropped++;
      else
        this.dispatch(
          ghosts,
          onEvent,
          type,
          this.bufferEntity[slot],
          this.bufferGeneration[slot],
          this.bufferTick[slot],
          value,
          true,
        );
    }
    const u = this.unreliable;
    for (let i = 0; i < u.type.length; i++) {
      const seq = (this.unreliableBase + i) & SEQUENCE_MASK;
      if (this.seen(seq)) continue;
      const entity = u.entity.items[i];
      const generation = entity >= 0 ? (ghosts.ghost(entity)?.generation ?? -1) : 0;
      this.dispatch(ghosts, onEvent, u.type.items[i], entity, generation, u.ticks[i], u.values[i], false);
    }
    r.clear();
    u.clear();
  }

  private dispatch(
    ghosts: GhostLookup,
    onEvent: EventHandler | undefined,
    typeIndex: number,
    entity: number,
    generation: number,
    tick: number,
    value: unknown,
    reliable: boolean,
  ): void {
    let ghost: Ghost | null = null;
    if (entity >= 0) {
      ghost = ghosts.ghost(entity);
      if (ghost === null || ghost.generation !== generation) {
        this.dropped++;
        return;
      }
    }
    this.delivered++;
    onEvent?.(receivedEvent(this.events[typeIndex], value, tick, ghost, reliable));
  }

  /** Whether an unreliable sequence was dispatched already (or is too old to tell); marks it. */
  private seen(seq: number): boolean {
    const newest = this.newestUnreliable;
    if (newest >= 0) {
      const ahead = (seq - newest) & SEQUENCE_MASK;
      if (ahead === 0 || ahead >= 0x8000) {
        if (((newest - seq) & SEQUENCE_MASK) >= UNRELIABLE_MEMORY) return true;
        if (this.seenUnreliable[seq % UNRELIABLE_MEMORY] === seq) return true;
      } else this.newestUnreliable = seq;
    } else this.newestUnreliable = seq;
    this.seenUnreliable[seq % UNRELIABLE_MEMORY] = seq;
    return false;
  }

  private refuse(rs: ReadStream, reason: string): false {
    rs.fail(reason);
    return false;
  }
}
