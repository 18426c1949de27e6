/**
 * What the zone tests check in the feed batches zones published: they gather them, and check
 * that no entity is named by two zones in one tick.
 */
import { feedChannel } from '../../src/zones/zone-channels.js';
import type { ZoneFeed } from '../../src/zones/zone-feed.js';
import type { FeedBatch } from '../../src/zones/zone-messages.js';
import type { ZoneCodecs } from '../../src/zones/zone-wire.js';

/** Every batch zones 0..zones-1 publish on `feed` from now on, decoded (the unreadable left out). */
export function collectFeedBatches(feed: ZoneFeed, zones: number, codecs: ZoneCodecs): FeedBatch[] {
  const batches: FeedBatch[] = [];
  for (let zone = 0; zone < zones; zone++)
    feed.subscribe(feedChannel('gw.', zone), (bytes) => {
      const read = codecs.decodeFeedBatch(bytes);
      if (read.ok) batches.push(read.value);
    });
  return batches;
}

/**
 * Every tick at which two zones' batches named the same world id, as "tick T: W in zones A and B".
 * Batches from an epoch below `liveEpochs`' for their zone (a fenced process's, which readers
 * drop) are left out; without `liveEpochs`, each zone's newest epoch seen is the live one.
 */
export function doubleOwners(
  batches: readonly FeedBatch[],
  liveEpochs?: ReadonlyMap<number, number>,
): string[] {
  let live = liveEpochs;
  if (live === undefined) {
    const newest = new Map<number, number>();
    for (const b of batches) newest.set(b.zone, Math.max(newest.get(b.zone) ?? 0, b.epoch));
    live = newest;
  }
  const byTick = new Map<number, Map<number, number>>();
  const problems: string[] = [];
  for (const batch of batches) {
    if (batch.epoch < (live.get(batch.zone) ?? 0)) continue;
    const owners = byTick.get(batch.tick) ?? new Map<number, number>();
    for (const e of batch.entities) {
      const other = owners.get(e.worldId);
      if (other !== undefined && other !== batch.zone)
        problems.push(`tick ${batch.tick}: ${e.worldId} in zones ${other} and ${batch.zone}`);
      owners.set(e.worldId, batch.zone);
    }
    byTick.set(batch.tick, owners);
  }
  return problems;
}
