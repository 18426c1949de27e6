import type { CustomChannel } from '../channels/channel.js';
import type { CustomChannelConfig } from '../channels/config.js';
import type { ReadStream } from '../serialize/read-stream.js';
import { CONFIGURATION_DIFFERS, configurationHash } from './configuration.js';
import { EntityHistory } from './entity-history.js';
import type { EntityLayout } from './entity-layout.js';
import { type AnyEntityType, checkTypes, type EntityType } from './entity-type.js';
import { type AnyEventType, checkEvents, type EventHandler } from './event.js';
import { EventReceiver } from './event-receiver.js';
import { CHANGED, GhostReceiver, type GhostTable, UNKNOWN } from './ghost-receiver.js';
import { copyState, type LaneState, sameState } from './lane-state.js';

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

/**
 * Why a ghost went away: its entity was destroyed on the server (or replaced by a new one under
 * the same id), it left this client's interest (the entity lives on), or the connection was new.
 */
export type GhostEndReason = 'destroyed' | 'out-of-scope' | 'reset';

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

/**
 * The client side of replication: the ghosts of the entities the server replicates to it, kept
 * from the ghost section of each packet (put `channel` in MessageClient's channels, at the same
 * index as the server's `ReplicationServer.channel`). Hostile or stale sections refuse their
 * packet with a reason and change nothing. A new connection starts empty (every ghost is
 * destroyed, with events) and the server sends everything again.
 */
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

/** Section ticks ClientMirror remembers (see sectionTick). */
const SECTION_RING = 16;

export class ClientMirror implements CustomChannel, GhostTable {
  readonly types: readonly AnyEntityType[];
  readonly capacity: number;
  readonly historyLength: number;
  readonly channel: CustomChannelConfig;
  readonly typeOf: Int16Array;
  readonly histories: (EntityHistory | null)[];
  private readonly ghostList: (GhostRecord | null)[];
  private readonly receiver: GhostReceiver;
  /** This end's configuration fingerprint (configurationHash of types, capacity, historyLength). */
  readonly configuration: number;
  private newest = 0;
  private count = 0;
  /** The ticks of the last SECTION_RING sections applied, by their number; and how many were. */
  private readonly sectionTicks = new Float64Array(SECTION_RING);
  private sections = 0;
  private checked = false;
  private mismatches = 0;
  private readonly options: ClientMirrorOptions;
  private readonly eventReceiver: EventReceiver;

  constructor(options: ClientMirrorOptions) {
    checkTypes('ClientMirror', options.types);
    const { capacity } = options;
    if (!Number.isInteger(capacity) || capacity < 1 || capacity > 65536)
      throw new RangeError(`ClientMirror: capacity must be an integer in [1, 65536], got ${capacity}`);
    const historyLength = options.historyLength ?? 32;
    if (!Number.isInteger(historyLength) || historyLength < 2 || historyLength > 256)
      throw new RangeError(
        `ClientMirror: historyLength must be an integer in [2, 256], got ${historyLength}`,
      );
    this.options = options;
    this.types = Object.freeze([...options.types]);
    this.capacity = capacity;
    this.historyLength = historyLength;
    this.typeOf = new Int16Array(capacity).fill(-1);
    this.histories = new Array(capacity).fill(null);
    this.ghostList = new Array(capacity).fill(null);
    const events = options.events ?? [];
    checkEvents('ClientMirror', events);
    this.configuration = configurationHash(this.types, capacity, historyLength, events);
    this.receiver = new GhostReceiver(this.types, capacity);
    this.eventReceiver = new EventReceiver(Object.freeze([...events]), capacity);
    this.channel = { kind: 'custom', priority: options.priority ?? 1, create: () => this.reset() };
  }

  /** The tick of the newest section applied (0 before any). */
  get newestTick(): number {
    return this.newest;
  }

  /**
   * Sections applied since this mirror was made (never reset): with `sectionTick`, each one's
   * tick, for a client that times the snapshot stream (several may arrive between two frames,
   * while `newestTick` shows only the last).
   */
  get sectionsApplied(): number {
    return this.sections;
  }

  /** The tick of section number `index`, one of the last 16 applied (`sectionsApplied` − 16 ≤ index < `sectionsApplied`). */
  sectionTick(index: number): number {
    if (
      !Number.isInteger(index) ||
      index < this.sections - SECTION_RING ||
      index >= this.sections ||
      index < 0
    )
      throw new RangeError(
        `ClientMirror.sectionTick: index must be one of the last ${SECTION_RING} sections applied, got ${index}`,
      );
    return this.sectionTicks[index % SECTION_RING];
  }

  /** Whether this connection's server sent a configuration fingerprint equal to this mirror's. */
  get configurationChecked(): boolean {
    return this.checked;
  }

  /** What the mirror has counted (a snapshot, taken at the call). */
  stats(): Readonly<ClientMirrorStats> {
    return {
      configurationMismatches: this.mismatches,
      eventsDelivered: this.eventReceiver.delivered,
      eventsDropped: this.eventReceiver.dropped,
    };
  }

  /** Ghosts held. */
  get size(): number {
    return this.count;
  }

  /** The ghost with this id, or null. */
  ghost(id: number): Ghost | null {
    return (this.ghostList[id] as Ghost | undefined) ?? null;
  }

  /** Every ghost held, by id. */
  *ghosts(): IterableIterator<Ghost> {
    for (const g of this.ghostList) if (g !== null) yield g as Ghost;
  }

  /** The lane states received for a ghost, newest first, with their ticks (for interpolation). */
  history(id: number): EntityHistory | null {
    return this.typeOf[id] >= 0 ? this.histories[id] : null;
  }

  /** Empties the mirror (a new connection): every ghost is destroyed, with events. */
  reset(): this {
    for (let id = 0; id < this.capacity; id++) this.remove(id, this.newest, 'reset');
    this.newest = 0;
    this.checked = false;
    this.eventReceiver.reset(); // events hook
    return this;
  }

  // CustomChannel: the client only reads the section.
  select(): number {
    return 0;
  }

  writeSelected(): void {}

  acked(): void {}

  read(rs: ReadStream, staged: { push(item: unknown): void }): boolean {
    if (!this.receiver.read(rs, this)) {
      if (this.receiver.configurationDiffers) {
        this.mismatches++;
        this.options.onConfigurationMismatch?.(CONFIGURATION_DIFFERS);
      }
      return false;
    }
    // events hook: the events part follows the state in the section
    if (!this.eventReceiver.read(rs, this.receiver.tick, this.receiver)) return false;
    staged.push(this.receiver);
    return true;
  }

  apply(): void {
    const r = this.receiver;
    const tick = r.tick;
    for (let i = 0; i < r.destroys.length; i++)
      this.remove(r.destroys.items[i], tick, r.destroyGone.items[i] === 1 ? 'destroyed' : 'out-of-scope');
    for (let i = 0; i < r.creates.length; i++) {
      const id = r.creates.items[i];
      const type = this.types[r.createTypes.items[i]];
      const generation = r.createGenerations.items[i];
      const ghost = this.ghostList[id];
      if (ghost !== null && (ghost.generation !== generation || ghost.type !== type))
        this.remove(id, tick, 'destroyed');
      if (this.ghostList[id] === null)
        this.add(id, type, r.createTypes.items[i], generation, r.createStates[i], tick);
      else this.store(id, r.createStates[i], tick, UNKNOWN);
    }
    for (let i = 0; i < r.updates.length; i++)
      this.store(r.updates.items[i], r.updateStates[i], tick, r.updateChanged.items[i]);
    this.newest = tick;
    this.sectionTicks[this.sections % SECTION_RING] = tick;
    this.sections++;
    if (r.hadConfiguration) this.checked = true;
    this.eventReceiver.apply(this, this.options.onEvent); // events hook: after the state
  }

  private add(
    id: number,
    type: AnyEntityType,
    typeIndex: number,
    generation: number,
    state: LaneState,
    tick: number,
  ): void {
    const layout = type.layout as EntityLayout<unknown>;
    let history = this.histories[id];
    if (history === null || history.layout !== layout) {
      history = new EntityHistory(layout, this.historyLength);
      this.histories[id] = history;
    }
    history.clear();
    layout.copyState(state, history.slotFor(tick));
    const ghost: GhostRecord = { id, generation, type, value: layout.dequantize(state), tick };
    this.ghostList[id] = ghost;
    this.typeOf[id] = typeIndex;
    this.count++;
    this.options.onCreate?.(ghost as Ghost, tick);
  }

  /**
   * A new state of a ghost held: kept for baselines, and its value rebuilt when it changed.
   * `changed`: the receiver's updateChanged (UNKNOWN: compared here).
   */
  private store(id: number, state: LaneState, tick: number, changed: number): void {
    const ghost = this.ghostList[id]!;
    const history = this.histories[id]!;
    // The receiver's states are of the ghost's own layout: copied without the shape checks.
    const differs = changed === UNKNOWN ? !sameState(history.latest!, state) : changed === CHANGED;
    copyState(state, history.slotFor(tick));
    ghost.tick = tick;
    if (!differs) return;
    ghost.value = history.layout.dequantize(state, ghost.value);
    this.options.onUpdate?.(ghost as Ghost, tick);
  }

  private remove(id: number, tick: number, reason: GhostEndReason): void {
    const ghost = this.ghostList[id];
    if (ghost === null) return;
    this.ghostList[id] = null;
    this.typeOf[id] = -1;
    this.count--;
    this.options.onDestroy?.(ghost as Ghost, tick, reason);
  }
}
