import type { CustomChannel } from '../channels/channel.js';
import type { CustomChannelConfig } from '../channels/config.js';
import type { ReadStream } from '../serialize/read-stream.js';
import { configurationHash } from './configuration.js';
import { EntityHistory } from './entity-history.js';
import type { EntityLayout } from './entity-layout.js';
import type { AnyEntityType } from './entity-type.js';
import type { AnyEventType } from './event.js';
import { EventReceiver } from './event-receiver.js';
import { CHANGED, GhostReceiver, type GhostTable, UNKNOWN } from './ghost-receiver.js';
import { copyState, type LaneState, sameState } from './lane-state.js';

/**
 * Why a ghost went away: its entity was destroyed on the server (or replaced by a new one under
 * the same id), it left this client's interest (the entity lives on), or the connection was new.
 */
export type GhostEndReason = 'destroyed' | 'out-of-scope' | 'reset';

/** Section ticks a mirror remembers (see ClientMirror.sectionTick). */
export const SECTION_RING = 16;

/** What a mirror's owner hears of its ghosts (ClientMirror builds values and calls back; a light bot nothing). */
export interface MirrorListener {
  /** A ghost appeared with its first state (held in its history now). */
  created(id: number, typeIndex: number, generation: number, state: LaneState, tick: number): void;
  /** A ghost held got a new state (`differs`: from the one before). */
  stored(id: number, state: LaneState, tick: number, differs: boolean): void;
  /** A ghost went away. */
  removed(id: number, tick: number, reason: GhostEndReason): void;
  /** A section was applied (after its ghosts): the events part's turn. */
  appliedSection(tick: number): void;
  /** A section was refused because the server is configured otherwise. */
  configurationMismatch(): void;
}

/**
 * The states half of a client's mirror, shared by ClientMirror and the load tester's light bot
 * (one piece of code, so a light bot reads, refuses and keeps baselines exactly as a game client
 * does): reads each ghost section with a GhostReceiver and keeps every ghost's received states,
 * which the next deltas are read against. `histories` shows a history only while its ghost is
 * held; `pooled` says where those of ghosts gone wait (see take).
 * Its owner hears of ghosts through a MirrorListener.
 */
export class MirrorStates implements CustomChannel, GhostTable {
  readonly channel: CustomChannelConfig;
  readonly typeOf: Int16Array;
  readonly histories: (EntityHistory | null)[];
  /** This end's configuration fingerprint (configurationHash of types, capacity, historyLength, events). */
  readonly configuration: number;
  readonly receiver: GhostReceiver;
  readonly eventReceiver: EventReceiver;
  /** Per id: the generation of the ghost held. */
  private readonly generations: Int32Array;
  /** Per id: the type index of the history in `histories` (-1: none). */
  private readonly historyType: Int16Array;
  /** Pooled: per type, histories of ghosts gone; else per id, the history its last ghost had. */
  private readonly spareHistories: EntityHistory[][];
  private readonly kept: (EntityHistory | null)[];
  private newest = 0;
  private checked = false;
  /** The ticks of the last SECTION_RING sections applied, by their number; and how many were. */
  readonly sectionTicks = new Float64Array(SECTION_RING);
  private sections = 0;
  /** Sections refused because the server is configured otherwise. */
  mismatches = 0;

  constructor(
    readonly types: readonly AnyEntityType[],
    readonly capacity: number,
    readonly historyLength: number,
    events: readonly AnyEventType[],
    priority: number,
    private readonly listener: MirrorListener,
    private readonly pooled: boolean,
  ) {
    this.typeOf = new Int16Array(capacity).fill(-1);
    this.histories = new Array(capacity).fill(null);
    this.generations = new Int32Array(capacity);
    this.historyType = new Int16Array(capacity).fill(-1);
    this.spareHistories = types.map(() => []);
    this.kept = pooled ? [] : new Array(capacity).fill(null);
    this.configuration = configurationHash(types, capacity, historyLength, events);
    this.receiver = new GhostReceiver(types, capacity);
    this.eventReceiver = new EventReceiver(events, capacity);
    this.channel = { kind: 'custom', priority, create: () => this.reset() };
  }

  /** The tick of the newest section applied (0 before any). */
  get newestTick(): number {
    return this.newest;
  }

  /** Sections applied since this mirror was made (never reset). */
  get sectionsApplied(): number {
    return this.sections;
  }

  /** Whether this connection's server sent a configuration fingerprint equal to this mirror's. */
  get configurationChecked(): boolean {
    return this.checked;
  }

  /** Empties the mirror (a new connection): every ghost is removed ('reset'). */
  reset(): this {
    for (let id = 0; id < this.capacity; id++)
      if (this.typeOf[id] >= 0) this.remove(id, this.newest, 'reset');
    this.newest = 0;
    this.checked = false;
    this.eventReceiver.reset();
    return this;
  }

  // CustomChannel: the client only reads the section.
  select(): number {
    return 0;
  }

  writeSelected(): void {}

  acked(): void {}

  read(rs: ReadStream, staged: { push(item: unknown): void }): boolean {
    const r = this.receiver;
    if (!r.read(rs, this)) {
      if (r.configurationDiffers) {
        this.mismatches++;
        this.listener.configurationMismatch();
      }
      return false;
    }
    // The events part follows the state in the section.
    if (!this.eventReceiver.read(rs, r.tick, r)) return false;
    staged.push(r);
    return true;
  }

  apply(): void {
    const r = this.receiver;
    const tick = r.tick;
    for (let i = 0; i < r.destroys.length; i++)
      this.remove(r.destroys.items[i], tick, r.destroyGone.items[i] === 1 ? 'destroyed' : 'out-of-scope');
    for (let i = 0; i < r.creates.length; i++) {
      const id = r.creates.items[i];
      const typeIndex = r.createTypes.items[i];
      const generation = r.createGenerations.items[i];
      const state = r.createStates[i];
      // Another entity under the id: the one held goes.
      if (this.typeOf[id] >= 0 && (this.typeOf[id] !== typeIndex || this.generations[id] !== generation))
        this.remove(id, tick, 'destroyed');
      const history = this.histories[id];
      if (history === null) {
        // A new ghost starts its states afresh.
        copyState(state, this.take(id, typeIndex).slotFor(tick));
        this.typeOf[id] = typeIndex;
        this.generations[id] = generation;
        this.listener.created(id, typeIndex, generation, state, tick);
      } else {
        // A create resent for a ghost held adds a state.
        const differs = !sameState(history.latest!, state);
        copyState(state, history.slotFor(tick));
        this.listener.stored(id, state, tick, differs);
      }
    }
    for (let i = 0; i < r.updates.length; i++) {
      const id = r.updates.items[i];
      const state = r.updateStates[i];
      const history = this.histories[id]!;
      const changed = r.updateChanged.items[i];
      const differs = changed === UNKNOWN ? !sameState(history.latest!, state) : changed === CHANGED;
      if (state.blobs.length === 0) {
        // Lanes only: copied straight into the history's record (its state objects view it).
        const lanes = state.lanes;
        const count = lanes.length;
        const record = history.record;
        const at = history.lanes0 + history.slotIndexFor(tick) * count;
        for (let k = 0; k < count; k++) record[at + k] = lanes[k];
      } else copyState(state, history.slotFor(tick));
      this.listener.stored(id, state, tick, differs);
    }
    this.newest = tick;
    this.sectionTicks[this.sections % SECTION_RING] = tick;
    this.sections++;
    if (r.hadConfiguration) this.checked = true;
    this.listener.appliedSection(tick);
  }

  private remove(id: number, tick: number, reason: GhostEndReason): void {
    if (this.typeOf[id] < 0) return;
    this.typeOf[id] = -1;
    const history = this.histories[id];
    if (history !== null) {
      if (this.pooled) this.spareHistories[this.historyType[id]].push(history);
      this.histories[id] = null;
    }
    this.listener.removed(id, tick, reason);
  }

  /**
   * An empty history of type `typeIndex` for `id`. Pooled: a spare one, or a new one while there
   * are too few (a light bot's memory: as many are made as are ever held at once). Else the one
   * kept at `id` when of the type (a game client's: histories stay where their ids are, which
   * keeps the ones read together close).
   */
  private take(id: number, typeIndex: number): EntityHistory {
    let history = this.pooled ? this.spareHistories[typeIndex].pop() : this.kept[id];
    if (history === undefined || history === null || (!this.pooled && this.historyType[id] !== typeIndex)) {
      history = new EntityHistory(this.types[typeIndex].layout as EntityLayout<unknown>, this.historyLength);
      if (!this.pooled) this.kept[id] = history;
    } else history.clear();
    this.histories[id] = history;
    this.historyType[id] = typeIndex;
    return history;
  }
}
