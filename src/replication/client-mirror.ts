import type { CustomChannel } from '../channels/channel.js';
import type { CustomChannelConfig } from '../channels/config.js';
import type { ReadStream } from '../serialize/read-stream.js';
import { CONFIGURATION_DIFFERS } from './configuration.js';
import type { EntityHistory } from './entity-history.js';
import type { EntityLayout } from './entity-layout.js';
import { type AnyEntityType, checkTypes, type EntityType, expandTypes } from './entity-type.js';
import { type AnyEventType, checkEvents, type EventHandler } from './event.js';
import type { EventReceiver, GhostLookup } from './event-receiver.js';
import type { GhostTable } from './ghost-receiver.js';
import type { LaneState } from './lane-state.js';
import { type GhostEndReason, type MirrorListener, MirrorStates, SECTION_RING } from './mirror-states.js';
import { PART_GENERATION, PART_OF } from './visibility.js';

/** A client's copy of one server entity. `value` is rebuilt in place when a new state arrives. */
export interface Ghost<T = unknown> {
  readonly id: number;
  readonly generation: number;
  readonly type: EntityType<T, string>;
  /** The newest value received (quantized as the server sent it). */
  readonly value: T;
  /** The server tick of `value`. */
  readonly tick: number;
}

/** Narrows a ghost by its type, typing its value: `if (isGhostOf(ghost, Cube)) ghost.value.position`. */
export function isGhostOf<T>(ghost: Ghost, type: EntityType<T, string>): ghost is Ghost<T> {
  return ghost.type === (type as EntityType<unknown, string>);
}

export type GhostEvent = (ghost: Ghost, serverTick: number) => void;

export type { GhostEndReason };

export type GhostEndEvent = (ghost: Ghost, serverTick: number, reason: GhostEndReason) => void;

export interface ClientMirrorOptions {
  /** The server world's types, in the same order. */
  types: readonly AnyEntityType[];
  /** The server world's capacity. */
  capacity: number;
  /** The server world's historyLength (default 32): received states kept per ghost for baselines. */
  historyLength?: number;
  /** The ghost section's channel priority and budget (the server's matter; these only mirror them). */
  priority?: number;
  /** Called as a section is applied: a ghost appeared, got a new value, or went away. */
  onCreate?: GhostEvent;
  onUpdate?: GhostEvent;
  onDestroy?: GhostEndEvent;
  /**
   * Called on every section refused because the server's types, capacity or historyLength differ
   * from this mirror's (nothing can be replicated until both ends agree): a developer's alarm.
   */
  onConfigurationMismatch?: (reason: string) => void;
  /** The server's event types, in the same order (default none). */
  events?: readonly AnyEventType[];
  /**
   * Called for each event once the section carrying it is applied (so the state it goes with,
   * and an entity event's ghost, are there): `if (e.is(Explosion)) boom(e.ghost, e.value)`.
   */
  onEvent?: EventHandler;
}

interface GhostRecord {
  id: number;
  generation: number;
  type: AnyEntityType;
  value: unknown;
  tick: number;
}

/** What a ClientMirror has counted. */
export interface ClientMirrorStats {
  /**
   * Sections refused because the server is configured otherwise (CONFIGURATION_DIFFERS): anything
   * above 0 means the two ends list different types, capacity or historyLength.
   */
  readonly configurationMismatches: number;
  /** Events dispatched to onEvent. */
  readonly eventsDelivered: number;
  /** Events dropped: their ghost went away before delivery. */
  readonly eventsDropped: number;
}

/**
 * The client side of replication: the ghosts of the entities the server replicates to it, kept
 * from the ghost section of each packet (put `channel` in MessageClient's channels, at the same
 * index as the server's `ReplicationServer.channel`). Hostile or stale sections refuse their
 * packet with a reason and change nothing. A new connection starts empty (every ghost is
 * destroyed, with events) and the server sends everything again.
 */
export class ClientMirror implements CustomChannel, GhostTable {
  readonly types: readonly AnyEntityType[];
  readonly capacity: number;
  readonly historyLength: number;
  readonly channel: CustomChannelConfig;
  readonly typeOf: Int16Array;
  readonly histories: (EntityHistory | null)[];
  /** This end's configuration fingerprint (configurationHash of types, capacity, historyLength). */
  readonly configuration: number;
  /** The received states (shared with the load tester's light bot); this class keeps the values. */
  private readonly states: MirrorStates;
  private readonly values: GhostValues;
  /** The options, read at each call (the values half holds the same object). */
  private readonly options: ClientMirrorOptions;

  constructor(options: ClientMirrorOptions) {
    checkTypes('ClientMirror', options.types);
    const types = expandTypes(options.types);
    checkTypes('ClientMirror', types);
    const { capacity } = options;
    if (!Number.isInteger(capacity) || capacity < 1 || capacity > 65536)
      throw new RangeError(`ClientMirror: capacity must be an integer in [1, 65536], got ${capacity}`);
    const historyLength = options.historyLength ?? 32;
    if (!Number.isInteger(historyLength) || historyLength < 2 || historyLength > 256)
      throw new RangeError(
        `ClientMirror: historyLength must be an integer in [2, 256], got ${historyLength}`,
      );
    const events = options.events ?? [];
    checkEvents('ClientMirror', events);
    this.types = Object.freeze(types);
    this.capacity = capacity;
    this.historyLength = historyLength;
    this.options = options;
    this.values = new GhostValues(this.types, capacity, this.options);
    const priority = options.priority ?? 1;
    this.states = new MirrorStates(
      this.types,
      capacity,
      historyLength,
      Object.freeze([...events]),
      priority,
      this.values,
      false,
    );
    this.values.events = this.states.eventReceiver;
    this.typeOf = this.states.typeOf;
    this.histories = this.states.histories;
    this.configuration = this.states.configuration;
    this.channel = { kind: 'custom', priority, create: () => this.reset() };
  }

  /** The tick of the newest section applied (0 before any). */
  get newestTick(): number {
    return this.states.newestTick;
  }

  /**
   * Sections applied since this mirror was made (never reset): with `sectionTick`, each one's
   * tick, for a client that times the snapshot stream (several may arrive between two frames,
   * while `newestTick` shows only the last).
   */
  get sectionsApplied(): number {
    return this.states.sectionsApplied;
  }

  /** The tick of section number `index`, one of the last 16 applied (`sectionsApplied` − 16 ≤ index < `sectionsApplied`). */
  sectionTick(index: number): number {
    const sections = this.states.sectionsApplied;
    if (!Number.isInteger(index) || index < sections - SECTION_RING || index >= sections || index < 0)
      throw new RangeError(
        `ClientMirror.sectionTick: index must be one of the last ${SECTION_RING} sections applied, got ${index}`,
      );
    return this.states.sectionTicks[index % SECTION_RING];
  }

  /** Whether this connection's server sent a configuration fingerprint equal to this mirror's. */
  get configurationChecked(): boolean {
    return this.states.configurationChecked;
  }

  /** What the mirror has counted (a snapshot, taken at the call). */
  stats(): Readonly<ClientMirrorStats> {
    return {
      configurationMismatches: this.states.mismatches,
      eventsDelivered: this.states.eventReceiver.delivered,
      eventsDropped: this.states.eventReceiver.dropped,
    };
  }

  /** Ghosts held. */
  get size(): number {
    return this.values.count;
  }

  /** The ghost with this id, or null. */
  ghost(id: number): Ghost | null {
    return (this.values.ghostList[id] as Ghost | undefined) ?? null;
  }

  /** Every ghost held, by id (private parts are in their entities' values, not ghosts of their own). */
  *ghosts(): IterableIterator<Ghost> {
    for (const g of this.values.ghostList) if (g !== null && g.type.partOf === undefined) yield g as Ghost;
  }

  /**
   * Whether this client holds a private field of a ghost (its audience admits it): then the field
   * is in the ghost's value; else the value has no such key (reading it gives undefined).
   */
  holds(id: number, field: string): boolean {
    return this.values.heldPart(id, field) >= 0;
  }

  /** The lane states received for a ghost, newest first, with their ticks (for interpolation). */
  history(id: number): EntityHistory | null {
    return this.typeOf[id] >= 0 ? this.histories[id] : null;
  }

  /** Empties the mirror (a new connection): every ghost is destroyed, with events. */
  reset(): this {
    this.states.reset();
    return this;
  }

  /**
   * @internal Starts the event sequences again, keeping the ghosts: a ReplayPlayer entering a
   * recording's next chunk, whose events are numbered afresh (docs/replay-format.md).
   */
  restartEvents(): void {
    this.states.eventReceiver.reset();
  }

  // CustomChannel: the client only reads the section.
  select(): number {
    return 0;
  }

  writeSelected(): void {}

  acked(): void {}

  read(rs: ReadStream, staged: { push(item: unknown): void }): boolean {
    return this.states.read(rs, staged);
  }

  apply(): void {
    this.states.apply();
  }
}

/** The values half of a ClientMirror: a ghost record per ghost held, rebuilt as states arrive, and the callbacks. */
class GhostValues implements MirrorListener, GhostLookup {
  readonly ghostList: (GhostRecord | null)[];
  count = 0;
  /** The mirror's event receiver (set once the states half is made). */
  events: EventReceiver | null = null;

  constructor(
    private readonly types: readonly AnyEntityType[],
    capacity: number,
    private readonly options: ClientMirrorOptions,
  ) {
    this.ghostList = new Array(capacity).fill(null);
  }

  ghost(id: number): Ghost | null {
    return (this.ghostList[id] as Ghost | undefined) ?? null;
  }

  created(id: number, typeIndex: number, generation: number, state: LaneState, tick: number): void {
    const type = this.types[typeIndex];
    const layout = type.layout as EntityLayout<unknown>;
    const ghost: GhostRecord = { id, generation, type, value: layout.dequantize(state), tick };
    this.ghostList[id] = ghost;
    if (type.partOf !== undefined) {
      this.track(ghost, true);
      this.partChanged(ghost, tick);
      return;
    }
    this.count++;
    if (type.parts !== undefined && type.parts.length > 0) this.attachParts(ghost);
    this.options.onCreate?.(ghost as Ghost, tick);
  }

  /** A new state of a ghost held: its value rebuilt when it changed. */
  stored(id: number, state: LaneState, tick: number, differs: boolean): void {
    const ghost = this.ghostList[id]!;
    ghost.tick = tick;
    if (!differs) return;
    ghost.value = ghost.type.layout.dequantize(state, ghost.value);
    if (ghost.type.partOf !== undefined) {
      this.partChanged(ghost, tick);
      return;
    }
    if (ghost.type.parts !== undefined && ghost.type.parts.length > 0) this.attachParts(ghost);
    this.options.onUpdate?.(ghost as Ghost, tick);
  }

  removed(id: number, tick: number, reason: GhostEndReason): void {
    const ghost = this.ghostList[id];
    if (ghost === null) return;
    this.ghostList[id] = null;
    if (ghost.type.partOf !== undefined) {
      this.track(ghost, false);
      const owner = this.partOwner(ghost);
      if (owner !== null) {
        // Withdrawn: the field is absent again (as on a ghost that never held it).
        delete (owner.value as Record<string, unknown>)[ghost.type.partOf.part.field];
        this.options.onUpdate?.(owner as Ghost, tick);
      }
      return;
    }
    this.count--;
    this.options.onDestroy?.(ghost as Ghost, tick, reason);
  }

  /** The companion id of a ghost's part this client holds, or -1. */
  heldPart(id: number, field: string): number {
    const ghost = this.ghostList[id];
    if (ghost === null || ghost === undefined) return -1;
    for (const part of this.partsByOwner.get(id) ?? []) {
      const companion = this.ghostList[part]!;
      if (companion.type.partOf!.part.field === field && this.partOwner(companion) === ghost) return part;
    }
    return -1;
  }

  /** Per entity id (a part's `$of`): the ids of the part companions held for it. */
  private readonly partsByOwner = new Map<number, number[]>();

  private track(companion: GhostRecord, add: boolean): void {
    const owner = (companion.value as Record<string, number>)[PART_OF];
    const list = this.partsByOwner.get(owner) ?? [];
    const at = list.indexOf(companion.id);
    if (add && at < 0) list.push(companion.id);
    if (!add && at >= 0) list.splice(at, 1);
    if (list.length === 0) this.partsByOwner.delete(owner);
    else this.partsByOwner.set(owner, list);
  }

  /** The ghost a part companion belongs to, when it is held (same id and generation), else null. */
  private partOwner(companion: GhostRecord): GhostRecord | null {
    const value = companion.value as Record<string, number>;
    const owner = this.ghostList[value[PART_OF]];
    if (owner === null || owner === undefined) return null;
    return owner.generation === value[PART_GENERATION] && owner.type === companion.type.partOf!.type
      ? owner
      : null;
  }

  private partChanged(companion: GhostRecord, tick: number): void {
    const owner = this.partOwner(companion);
    if (owner === null) return;
    const field = companion.type.partOf!.part.field;
    (owner.value as Record<string, unknown>)[field] = (companion.value as Record<string, unknown>)[field];
    this.options.onUpdate?.(owner as Ghost, tick);
  }

  /**
   * A ghost with private fields: each held part's value in it; a field not held is absent (no
   * key: `'ammo' in value` is false, a spread leaves it out), never a key holding undefined.
   */
  private attachParts(ghost: GhostRecord): void {
    const value = ghost.value as Record<string, unknown>;
    const held = this.partsByOwner.get(ghost.id);
    for (const part of ghost.type.parts!) {
      const field = part.field;
      let companion: GhostRecord | null = null;
      for (const id of held ?? []) {
        const candidate = this.ghostList[id]!;
        if (candidate.type.partOf!.part.field === field && this.partOwner(candidate) === ghost) {
          companion = candidate;
          break;
        }
      }
      // Set or removed in place, so a value that keeps its fields keeps its shape.
      if (companion !== null) value[field] = (companion.value as Record<string, unknown>)[field];
      else if (field in value) delete value[field];
    }
  }

  appliedSection(): void {
    this.events!.apply(this, this.options.onEvent);
  }

  configurationMismatch(): void {
    this.options.onConfigurationMismatch?.(CONFIGURATION_DIFFERS);
  }
}
