import { bitsRequired } from '../bits/bits-required.js';
import { checkIndex } from '../channels/check-index.js';
import { checkNonNegative } from './check-argument.js';
import { type AnyEventType, checkEvents, type EventType, isEventType } from './event.js';
import { payloadBits, RELIABLE_WINDOW } from './event-wire.js';
import { idBits } from './ghost-wire.js';
import type { Entity, ServerWorld } from './server-world.js';

/** Where an event goes and how: `replication.emit(Explosion, value, { entity: grenade, reliable: true })`. */
export interface EmitOptions {
  /** The entity the event is about: only clients that have (or are sent) its ghost get it. */
  entity?: Entity<unknown>;
  /** Resent until acked, delivered exactly once and in emit order (default false: at most once). */
  reliable?: boolean;
  /** Only this client (its index); default every client (that has the entity, for an entity event). */
  to?: number;
  /** A private field of `entity`: only the clients that hold it get the event (ReplicationServer.emit). */
  part?: string;
}

export interface EventLimits {
  /** Reliable events queued or unacked per client (default and most: 256, the client's window). */
  reliableQueueSize?: number;
  /** Unreliable events waiting per client (default 64); when full, the oldest is dropped. */
  unreliableQueueSize?: number;
  /** Seconds an unreliable event may wait for room before it is dropped (default 0.25). */
  unreliableMaxAge?: number;
  /** Events emitted between two `world.tick()` before `emit` throws (default 4096). */
  pendingSize?: number;
  /**
   * A client's reliable queue was full: the event is not queued for it (its other reliable events
   * keep their order), so that client misses it. A client that far behind has usually lost its
   * link; disconnecting it is usually right.
   */
  onOverflow?: (clientIndex: number, type: AnyEventType) => void;
}

/** Counters over every client (per client copies count once each). */
export interface EventStats {
  /** `emit` calls. */
  emitted: number;
  /** Copies queued for clients. */
  queued: number;
  /** Copies written for the first time, and written again (reliable ones not acked in time). */
  written: number;
  resent: number;
  /** Reliable copies acked. */
  acked: number;
  /** Entity events whose entity was destroyed or left the client before they could be written. */
  droppedGone: number;
  /** Unreliable copies that waited longer than unreliableMaxAge, or pushed out of a full queue. */
  droppedExpired: number;
  /** Reliable copies not queued because the client's queue was full (onOverflow was called). */
  overflowed: number;
}

/** An emitted event, serialized once and shared by every client's queue. */
export interface ServerEvent {
  readonly type: AnyEventType;
  readonly typeIndex: number;
  /** The world tick whose state it goes with: the one after the emit. */
  readonly tick: number;
  /** The entity's id and generation, or -1 for a global event. */
  readonly id: number;
  readonly generation: number;
  readonly to: number;
  readonly reliable: boolean;
  readonly bytes: Uint8Array;
  /** Its bits on the wire without the list bit, the sequence and the tick. */
  readonly bits: number;
}

/** What the hub needs of each client's sender. */
export interface EventRecipient {
  readonly client: number;
  /** Whether the entity is relevant to this client now (it has or is being sent its ghost). */
  relevant(id: number): boolean;
  offer(event: ServerEvent): void;
}

/**
 * The server's events: checks and serializes each `emit` once, keeps it until the world's next
 * tick (its state goes out then), then offers it to every client it is for.
 */
export class EventHub {
  readonly events: readonly AnyEventType[];
  readonly stats: EventStats = {
    emitted: 0,
    queued: 0,
    written: 0,
    resent: 0,
    acked: 0,
    droppedGone: 0,
    droppedExpired: 0,
    overflowed: 0,
  };
  readonly reliableQueueSize: number;
  readonly unreliableQueueSize: number;
  readonly unreliableMaxAge: number;
  readonly onOverflow: ((clientIndex: number, type: AnyEventType) => void) | undefined;
  private readonly pendingSize: number;
  private readonly index = new Map<AnyEventType, number>();
  private readonly reliableTypeBits: number;
  private readonly unreliableTypeBits: number;
  private readonly idBits: number;
  private pending: ServerEvent[] = [];
  private publishing: ServerEvent[] = [];

  constructor(
    private readonly world: ServerWorld,
    private readonly maxClients: number,
    events: readonly AnyEventType[],
    limits: EventLimits = {},
  ) {
    const where = 'ReplicationServer';
    checkEvents(where, events);
    this.events = Object.freeze([...events]);
    for (let i = 0; i < events.length; i++) this.index.set(events[i], i);
    this.reliableQueueSize = size(
      where,
      'reliableQueueSize',
      limits.reliableQueueSize,
      RELIABLE_WINDOW,
      1,
      RELIABLE_WINDOW,
    );
    this.unreliableQueueSize = size(where, 'unreliableQueueSize', limits.unreliableQueueSize, 64, 1, 65536);
    this.pendingSize = size(where, 'pendingSize', limits.pendingSize, 4096, 1, 1 << 20);
    this.unreliableMaxAge = checkNonNegative(where, 'unreliableMaxAge', limits.unreliableMaxAge ?? 0.25);
    if (limits.onOverflow !== undefined && typeof limits.onOverflow !== 'function')
      throw new TypeError(`${where}: eventLimits.onOverflow must be a function`);
    this.onOverflow = limits.onOverflow;
    this.reliableTypeBits = bitsRequired(0, events.length); // the last value marks a cancelled event
    this.unreliableTypeBits = bitsRequired(0, Math.max(0, events.length - 1));
    this.idBits = idBits(world.capacity);
  }

  /** Bits of a reliable event that was cancelled (its entity went away after it was first written). */
  get cancelledBits(): number {
    return this.reliableTypeBits;
  }

  emit<T>(type: EventType<T, string>, value: T, options: EmitOptions = {}): void {
    const where = `ReplicationServer.emit(${(type as AnyEventType)?.name ?? type})`;
    const typeIndex = this.index.get(type as AnyEventType);
    if (typeIndex === undefined)
      throw new RangeError(
        isEventType(type)
          ? `${where}: event type ${type.name} is not in this server's events`
          : `${where}: not an event type made by defineEvent`,
      );
    if (options === null || typeof options !== 'object')
      throw new TypeError(`${where}: options must be an object`);
    const { entity, reliable = false, to } = options;
    if (typeof reliable !== 'boolean') throw new TypeError(`${where}: reliable must be a boolean`);
    const target = to === undefined ? -1 : checkIndex(where, 'to', to, this.maxClients);
    let id = -1;
    let generation = 0;
    if (entity !== undefined) {
      if (entity === null || typeof entity !== 'object' || !this.world.isAlive(entity))
        throw new RangeError(`${where}: the entity is not a live entity of this world`);
      id = entity.id;
      generation = entity.generation;
    }
    if (this.pending.length >= this.pendingSize)
      throw new RangeError(
        `${where}: ${this.pending.length} events wait for world.tick() (pendingSize ${this.pendingSize})`,
      );
    // Serialized once here (a value outside the schema throws, naming the field), shared by every client.
    const bytes = type.codec.encode(value).slice();
    const bits =
      (reliable ? this.reliableTypeBits : this.unreliableTypeBits) +
      1 +
      (id >= 0 ? this.idBits : 0) +
      payloadBits(type as AnyEventType, bytes);
    this.pending.push({
      type: type as AnyEventType,
      typeIndex,
      tick: this.world.serverTick + 1,
      id,
      generation,
      to: target,
      reliable,
      bytes,
      bits,
    });
    this.stats.emitted++;
  }

  /**
   * Offers the events emitted up to the world's tick to their clients (once per tick, after
   * interest is up to date): an entity event to each client the entity is relevant to, if the
   * entity still lives (else it is dropped, counted once).
   */
  publish(senders: readonly ({ readonly events: EventRecipient } | null)[]): void {
    // `senders[c]` is client c's (ReplicationServer keeps them by client index).
    if (this.pending.length === 0) return;
    const tick = this.world.serverTick;
    // Swap the lists so an emit from a callback below lands in the next tick's list.
    const events = this.pending;
    this.pending = this.publishing;
    this.publishing = events;
    const world = this.world;
    for (let e = 0; e < events.length; e++) {
      const event = events[e];
      if (event.tick > tick) {
        this.pending.push(event); // emitted after the last tick
        continue;
      }
      const id = event.id;
      if (id >= 0 && (world.tickedType[id] < 0 || world.tickedGeneration[id] !== event.generation)) {
        this.stats.droppedGone++;
        continue;
      }
      // Senders sit at their client's index: an event for one client looks at that slot only.
      const first = Math.max(event.to, 0);
      const end = event.to >= 0 ? Math.min(event.to + 1, senders.length) : senders.length;
      for (let c = first; c < end; c++) {
        const recipient = senders[c]?.events;
        if (recipient === undefined || recipient.client !== c) continue;
        if (id >= 0 && !recipient.relevant(id)) continue;
        recipient.offer(event);
      }
    }
    events.length = 0;
  }
}

function size(
  where: string,
  name: string,
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  const v = value ?? fallback;
  if (!(Number.isInteger(v) && v >= min && v <= max))
    throw new RangeError(`${where}: eventLimits.${name} must be an integer in [${min}, ${max}], got ${v}`);
  return v;
}
