/**
 * A spectator delay (browser-safe; GameHost drives it): a second world that shows the live world
 * D ticks late, with its own ReplicationServer whose sections go to spectators instead of the
 * live one's. After each live tick T the live world's changes of T (creates, sets, destroys, by
 * a scan of its per-id arrays: O(capacity) a tick, whatever the number of spectators) are held
 * in a ring; at live tick T the changes of T − D are applied to the delayed world and it is
 * stamped T − D, so a delayed section never carries a tick newer than live − D.
 *
 * The ring is bounded by `delayTicks` and by `maxBytes` (each held change is counted as its
 * type's quantized lanes, 4 bytes each, plus RECORD_OVERHEAD_BYTES). Over `maxBytes`, the oldest
 * held ticks are applied early (the delay shrinks for those changes: counted in `appliedEarly`);
 * the delayed world stays whole, and its stamps stay live − D. Private fields stay on the
 * server: delayed spectators have no groups and own nothing, so they are sent public parts only.
 * @internal
 */

import type { AnyEntityType } from '../replication/entity-type.js';
import type { AnyEventType } from '../replication/event.js';
import { type ReplicationInterestOptions, ReplicationServer } from '../replication/replication-server.js';
import { type Entity, ServerWorld } from '../replication/server-world.js';

/** Bytes counted for a held change besides its lanes (its record, its value's object). */
export const RECORD_OVERHEAD_BYTES = 48;

/** A change of one live entity in one tick: created (or re-created), set, or destroyed. */
interface HeldChange {
  id: number;
  /** The entity's type (null: destroyed). */
  type: AnyEntityType | null;
  /** Its whole value (public and private fields) as the live world holds it. */
  value: unknown;
  bytes: number;
}

interface HeldTick {
  tick: number;
  changes: HeldChange[];
  bytes: number;
}

export interface SpectatorDelayStats {
  /** Ticks of the live world held now, and their counted bytes. */
  heldTicks: number;
  heldBytes: number;
  /** The bound on heldBytes. */
  maxBytes: number;
  /** Ticks applied before their delay was up because the ring was over maxBytes. */
  appliedEarly: number;
  /** The delayed world's newest stamp (live − delayTicks once started; 0 before). */
  delayedTick: number;
}

export class SpectatorDelay {
  readonly world: ServerWorld;
  readonly replication: ReplicationServer;
  private readonly ring: HeldTick[] = [];
  private head = 0;
  private heldBytes = 0;
  private appliedEarly = 0;
  /** Per live id: the generation last seen (-1: free) and the delayed world's entity for it. */
  private readonly seenGeneration: Int32Array;
  private readonly delayed: (Entity<unknown> | null)[];

  constructor(
    private readonly live: ServerWorld,
    types: readonly AnyEntityType[],
    events: readonly AnyEventType[],
    maxClients: number,
    readonly delayTicks: number,
    readonly maxBytes: number,
    interest: ReplicationInterestOptions | undefined,
    channel: { priority?: number; budgetBytes?: number },
  ) {
    this.world = new ServerWorld({ types, capacity: live.capacity });
    this.replication = new ReplicationServer({
      world: this.world,
      maxClients,
      events,
      ...(interest === undefined ? {} : { interest }),
      ...channel,
    });
    this.seenGeneration = new Int32Array(live.capacity).fill(-1);
    this.delayed = new Array(live.capacity).fill(null);
  }

  /** After the live world's tick `tick`: holds its changes, applies those of tick − delay, stamps the delayed world. */
  tick(tick: number): void {
    this.hold(tick);
    // Applied early while over the byte bound (never the tick just held: it is the live one).
    while (this.heldBytes > this.maxBytes && this.ring.length - this.head > 1) {
      this.applyOldest();
      this.appliedEarly++;
    }
    const due = tick - this.delayTicks;
    if (due < 1) return;
    while (this.head < this.ring.length && this.ring[this.head].tick <= due) this.applyOldest();
    if (this.head > 64 && this.head * 2 > this.ring.length) {
      this.ring.splice(0, this.head);
      this.head = 0;
    }
    // One stamp per live tick from live tick delay + 1: the delayed world's tick is live − delay.
    while (this.world.serverTick < due) this.world.tick();
  }

  stats(): SpectatorDelayStats {
    return {
      heldTicks: this.ring.length - this.head,
      heldBytes: this.heldBytes,
      maxBytes: this.maxBytes,
      appliedEarly: this.appliedEarly,
      delayedTick: this.world.serverTick,
    };
  }

  private hold(tick: number): void {
    const live = this.live;
    const changes: HeldChange[] = [];
    let bytes = 0;
    const { typeOf, generationOf, latestTicks, parentOf } = live;
    for (let id = 0; id < live.capacity; id++) {
      // A private part's companion: its entity's change (below) carries the whole value.
      if (parentOf[id] >= 0) {
        if (latestTicks[id] === tick) {
          const parent = parentOf[id];
          if (latestTicks[parent] !== tick) bytes += this.push(changes, parent, false);
        }
        continue;
      }
      const type = typeOf[id];
      const generation = type < 0 ? -1 : generationOf[id];
      if (generation !== this.seenGeneration[id]) {
        this.seenGeneration[id] = generation;
        if (generation < 0) {
          changes.push({ id, type: null, value: null, bytes: RECORD_OVERHEAD_BYTES });
          bytes += RECORD_OVERHEAD_BYTES;
        } else bytes += this.push(changes, id, true);
      } else if (generation >= 0 && latestTicks[id] === tick) bytes += this.push(changes, id, false);
    }
    this.ring.push({ tick, changes, bytes });
    this.heldBytes += bytes;
  }

  /** Holds the live entity `id`'s value now (a create when `created`). */
  private push(changes: HeldChange[], id: number, created: boolean): number {
    const entity = this.live.entity(id)!;
    const type = entity.type as AnyEntityType;
    const bytes = type.layout.lanes.length * 4 + RECORD_OVERHEAD_BYTES;
    // A create is marked by a negative id: the delayed entity is made anew (a destroy first).
    changes.push({ id: created ? -1 - id : id, type, value: this.live.get(entity), bytes });
    return bytes;
  }

  private applyOldest(): void {
    const held = this.ring[this.head++];
    this.heldBytes -= held.bytes;
    const world = this.world;
    // Destroys first, so a full world has room for the tick's creates.
    for (const change of held.changes) {
      if (change.type !== null && change.id >= 0) continue;
      const id = change.id < 0 ? -1 - change.id : change.id;
      const existing = this.delayed[id];
      if (existing !== null && world.isAlive(existing)) world.destroy(existing);
      this.delayed[id] = null;
    }
    for (const change of held.changes) {
      if (change.type === null) continue;
      if (change.id < 0) this.delayed[-1 - change.id] = world.create(change.type, change.value);
      else {
        const existing = this.delayed[change.id];
        if (existing !== null && world.isAlive(existing)) world.set(existing, change.value);
      }
    }
  }
}
