/**
 * A gateway's mirror of the zones' entities: one ServerWorld entity per world id, whichever zone
 * publishes it, so an entity handed from zone to zone stays one ghost for every client (same
 * mirror id, same baselines). Feed batches are read hostile-first: a batch from a fenced epoch,
 * an entity state older than the one held (a late batch from an entity's old zone after its
 * handoff), unknown types, bad states, unknown removals and a full mirror are refused and
 * counted, never thrown.
 */
import type { AnyEntityType } from '../replication/entity-type.js';
import type { Entity, ServerWorld } from '../replication/server-world.js';
import { worldIdProblem } from './world-id-allocator.js';
import type { FeedBatch } from './zone-messages.js';

/** Why a feed batch, or a part of one, was refused. */
export type MirrorRefusal =
  | 'stale-epoch'
  | 'stale-entity'
  | 'stale-removal'
  | 'bad-world-id'
  | 'bad-type'
  | 'type-changed'
  | 'bad-state'
  | 'unknown-removal'
  | 'mirror-full';

/** What the mirror holds for one world id: its entity, and the zone and tick of its state. */
export interface MirrorEntry {
  readonly worldId: number;
  readonly entity: Entity<unknown>;
  zone: number;
  tick: number;
  /** Whether its zone's last keyframe left it out (it goes if the next one does too). */
  missed: boolean;
}

export class ZoneMirror {
  private readonly entries = new Map<number, MirrorEntry>();
  /** The highest epoch seen per zone: batches of a lower one come from a fenced (replaced) zone. */
  private readonly epochs = new Map<number, number>();
  readonly refusals: Record<MirrorRefusal, number> = {
    'stale-epoch': 0,
    'stale-entity': 0,
    'stale-removal': 0,
    'bad-world-id': 0,
    'bad-type': 0,
    'type-changed': 0,
    'bad-state': 0,
    'unknown-removal': 0,
    'mirror-full': 0,
  };
  applied = 0;

  constructor(
    readonly world: ServerWorld,
    private readonly zoneCount: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The mirror entry of a world id, or undefined. */
  entry(worldId: number): MirrorEntry | undefined {
    return this.entries.get(worldId);
  }

  /** The mirror id (the clients' ghost id) of a world id, or -1 (none) when it is not mirrored. */
  mirrorIdOf(worldId: number): number {
    return this.entries.get(worldId)?.entity.id ?? -1;
  }

  /** Records the batch's epoch; false (counted) when the zone has been seen at a higher one. */
  admitEpoch(zone: number, epoch: number): boolean {
    const highest = this.epochs.get(zone) ?? -1;
    if (epoch < highest) {
      this.refusals['stale-epoch']++;
      return false;
    }
    this.epochs.set(zone, epoch);
    return true;
  }

  /** Applies one batch's entities and removals (the caller checked its header). */
  apply(feed: FeedBatch): void {
    if (!this.admitEpoch(feed.zone, feed.epoch)) return;
    this.applied++;
    const world = this.world;
    const { zone, tick } = feed;
    const seen = feed.keyframe ? new Set<number>() : null;
    for (const item of feed.entities) {
      const worldId = typeof item === 'object' && item !== null ? item.worldId : -1;
      if (worldIdProblem(worldId, this.zoneCount) !== null) {
        this.refusals['bad-world-id']++;
        continue;
      }
      const type: AnyEntityType | undefined = Number.isInteger(item.typeIndex)
        ? world.types[item.typeIndex]
        : undefined;
      if (type === undefined) {
        this.refusals['bad-type']++;
        continue;
      }
      seen?.add(worldId);
      const entry = this.entries.get(worldId);
      if (entry === undefined) {
        if (world.size >= world.capacity) {
          this.refusals['mirror-full']++;
          continue;
        }
        let entity: Entity<unknown>;
        try {
          entity = world.create(type, item.state);
        } catch {
          this.refusals['bad-state']++;
          continue;
        }
        this.entries.set(worldId, { worldId, entity, zone, tick, missed: false });
        continue;
      }
      // A handed-off entity's state comes from its new zone: an older one never overwrites it.
      if (tick < entry.tick) {
        this.refusals['stale-entity']++;
        continue;
      }
      if (entry.entity.type !== type) {
        this.refusals['type-changed']++;
        continue;
      }
      try {
        world.set(entry.entity, item.state);
      } catch {
        this.refusals['bad-state']++;
        continue;
      }
      entry.zone = zone;
      entry.tick = tick;
      entry.missed = false;
    }
    for (const worldId of feed.removed) {
      const entry = typeof worldId === 'number' ? this.entries.get(worldId) : undefined;
      if (entry === undefined) {
        this.refusals['unknown-removal']++;
        continue;
      }
      if (tick < entry.tick) {
        this.refusals['stale-removal']++;
        continue;
      }
      this.remove(entry);
    }
    // A keyframe lists every entity the zone owns. One it published last and no longer lists, that
    // no other zone published since, is gone (its removal was lost) or in flight to another zone
    // (handed off at the tick before, its new zone's batch not applied yet: it may come later in
    // this very stamp, or ticks later when that zone runs behind). Removing it then would destroy
    // and recreate its ghost for every client, so it goes only when the zone's next keyframe
    // leaves it out too.
    if (seen !== null)
      for (const entry of this.entries.values()) {
        if (entry.zone !== zone || entry.tick >= tick || seen.has(entry.worldId)) continue;
        if (entry.missed) this.remove(entry);
        else entry.missed = true;
      }
  }

  private remove(entry: MirrorEntry): void {
    this.entries.delete(entry.worldId);
    if (this.world.isAlive(entry.entity)) this.world.destroy(entry.entity);
  }
}
