/**
 * The light bot's side of replication: it reads every ghost section in full, with the same
 * receiver a ClientMirror uses (so a bad or mismatched section is refused the same way and the
 * packet is not applied), and keeps each ghost's received states, which the next deltas are read
 * against. What it leaves out is what only a game needs: the ghosts' values rebuilt from their
 * states, create/update/destroy callbacks and event dispatch. The server sees the same channel:
 * a client's replication entry writes nothing either way, and packets are acked below it.
 */
import type { CustomChannel } from '../src/channels/channel.js';
import type { CustomChannelConfig } from '../src/channels/config.js';
import { configurationHash } from '../src/replication/configuration.js';
import { EntityHistory } from '../src/replication/entity-history.js';
import type { EntityLayout } from '../src/replication/entity-layout.js';
import type { AnyEntityType } from '../src/replication/entity-type.js';
import { EventReceiver } from '../src/replication/event-receiver.js';
import { GhostReceiver, type GhostTable } from '../src/replication/ghost-receiver.js';
import { copyState } from '../src/replication/lane-state.js';
import type { ReadStream } from '../src/serialize/read-stream.js';

/** A ClientMirror's default, which the server's configuration fingerprint covers. */
const HISTORY_LENGTH = 32;

export class LightMirror implements CustomChannel, GhostTable {
  readonly channel: CustomChannelConfig;
  readonly typeOf: Int16Array;
  readonly histories: (EntityHistory | null)[];
  private readonly generations: Int32Array;
  /** Per id: the type index of the history in `histories` (-1: none). */
  private readonly historyType: Int16Array;
  /** Per type: histories of ghosts gone, for the next ghosts: as many are made as are ever held at once. */
  private readonly spareHistories: EntityHistory[][];
  readonly configuration: number;
  /** Sections refused (bad, stale or of another configuration). */
  refused = 0;
  private readonly receiver: GhostReceiver;
  private readonly events: EventReceiver;
  private readonly noGhosts = { ghost: () => null };
  private newest = 0;
  private checked = false;
  private sections = 0;

  constructor(
    private readonly types: readonly AnyEntityType[],
    capacity: number,
  ) {
    this.typeOf = new Int16Array(capacity).fill(-1);
    this.histories = new Array(capacity).fill(null);
    this.generations = new Int32Array(capacity);
    this.historyType = new Int16Array(capacity).fill(-1);
    this.spareHistories = types.map(() => []);
    this.configuration = configurationHash(types, capacity, HISTORY_LENGTH, []);
    this.receiver = new GhostReceiver(types, capacity);
    this.events = new EventReceiver([], capacity);
    this.channel = { kind: 'custom', priority: 1, create: () => this.reset() };
  }

  get newestTick(): number {
    return this.newest;
  }

  get configurationChecked(): boolean {
    return this.checked;
  }

  /** Sections applied since the mirror was made (never reset). */
  get sectionsApplied(): number {
    return this.sections;
  }

  /** A new connection: no ghost held. */
  reset(): this {
    this.typeOf.fill(-1);
    for (let id = 0; id < this.histories.length; id++) this.release(id);
    this.newest = 0;
    this.checked = false;
    this.events.reset();
    return this;
  }

  select(): number {
    return 0;
  }

  writeSelected(): void {}

  acked(): void {}

  read(rs: ReadStream, staged: { push(item: unknown): void }): boolean {
    if (!this.receiver.read(rs, this) || !this.events.read(rs, this.receiver.tick, this.receiver)) {
      this.refused++;
      return false;
    }
    staged.push(this.receiver);
    return true;
  }

  apply(): void {
    const r = this.receiver;
    const tick = r.tick;
    for (let i = 0; i < r.destroys.length; i++) {
      const id = r.destroys.items[i];
      this.typeOf[id] = -1;
      this.release(id);
    }
    for (let i = 0; i < r.creates.length; i++) {
      const id = r.creates.items[i];
      const typeIndex = r.createTypes.items[i];
      const generation = r.createGenerations.items[i];
      // Another entity under the id: the one held goes (as in ClientMirror).
      if (this.typeOf[id] !== typeIndex || this.generations[id] !== generation) {
        this.typeOf[id] = -1;
        this.release(id);
      }
      // A new ghost starts its states afresh; a create resent for one held adds a state.
      const history = this.histories[id] ?? this.take(id, typeIndex);
      // The receiver's states are of the type's own layout: copied without the layout's shape checks.
      copyState(r.createStates[i], history.slotFor(tick));
      this.typeOf[id] = typeIndex;
      this.generations[id] = generation;
    }
    for (let i = 0; i < r.updates.length; i++) {
      const history = this.histories[r.updates.items[i]] as EntityHistory;
      copyState(r.updateStates[i], history.slotFor(tick));
    }
    this.newest = tick;
    this.sections++;
    if (r.hadConfiguration) this.checked = true;
    this.events.apply(this.noGhosts, undefined);
  }

  /** A ghost gone: its history (32 states) waits for the next ghost of its type, at any id. */
  private release(id: number): void {
    const history = this.histories[id];
    if (history === null) return;
    this.spareHistories[this.historyType[id]].push(history);
    this.histories[id] = null;
  }

  /** An empty history of type `typeIndex` for `id`: a spare one, or a new one while there are too few. */
  private take(id: number, typeIndex: number): EntityHistory {
    let history = this.spareHistories[typeIndex].pop();
    if (history === undefined) {
      history = new EntityHistory(this.types[typeIndex].layout as EntityLayout<unknown>, HISTORY_LENGTH);
    } else history.clear();
    this.histories[id] = history;
    this.historyType[id] = typeIndex;
    return history;
  }
}
