/**
 * Zone runners on the wall clock, over the embedded store and an in-memory feed: entities cross
 * between two zones with no loss and no duplicate in the feeds; a zone taken over by a new process
 * (forced lease) comes back from its snapshot and inbox, and the old process fences itself.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { EmbeddedZoneFeed } from '../../src/zones/embedded-zone-feed.js';
import { EmbeddedZoneStore } from '../../src/zones/embedded-zone-store.js';
import { ZoneMap } from '../../src/zones/zone-map.js';
import type { FeedBatch } from '../../src/zones/zone-messages.js';
import { ZoneRunner, type ZoneRunnerOptions, type ZoneRunnerStats } from '../../src/zones/zone-runner.js';
import { testSeed } from '../support/seed.js';
import { collectFeedBatches } from '../support/zone-feed-audit.js';
import { SIDE, zoneGame, zoneRules } from '../support/zone-game.js';

const codecs = zoneCodecs(zoneGame);

import { zoneCodecs } from '../../src/zones/zone-wire.js';

const SEED = testSeed('zone-runner');
const WANDERERS = 40;

function world() {
  const store = new EmbeddedZoneStore({ nowMs: Date.now });
  const feed = new EmbeddedZoneFeed();
  const map = ZoneMap.grid({ minX: 0, minY: 0, maxX: SIDE, maxY: SIDE }, 2, 1, 2, 1);
  const originMs = Date.now();
  const batches = collectFeedBatches(feed, 2, codecs);
  const options = (zone: number, processId = `p${zone}`): ZoneRunnerOptions => ({
    zone,
    processId,
    rules: zoneRules(zone, SEED, WANDERERS),
    map,
    handoff: { margin: 1, minDwellTicks: 5 },
    store,
    feed,
    codecs,
    originMs,
    snapshotTicks: 5,
    leaseTtlMs: 600,
  });
  return { store, feed, map, batches, options };
}

/** Per tick, which zone's batch named each world id: never two. */
function ownersByTick(batches: FeedBatch[], maxEpoch: Map<number, number>) {
  const byTick = new Map<number, Map<number, number>>();
  const problems: string[] = [];
  for (const batch of batches) {
    if (batch.epoch < (maxEpoch.get(batch.zone) ?? 0)) continue; // a fenced process's, dropped by readers
    const owners = byTick.get(batch.tick) ?? new Map<number, number>();
    for (const e of batch.entities) {
      const other = owners.get(e.worldId);
      if (other !== undefined && other !== batch.zone)
        problems.push(`tick ${batch.tick}: ${e.worldId} in zones ${other} and ${batch.zone}`);
      owners.set(e.worldId, batch.zone);
    }
    byTick.set(batch.tick, owners);
  }
  return { byTick, problems };
}

/** Entities owned, waiting to enter, and committed but not read yet, over both (stopped) zones. */
async function population(store: EmbeddedZoneStore, stats: ZoneRunnerStats[]): Promise<number> {
  let count = 0;
  for (let zone = 0; zone < stats.length; zone++) {
    const unread = await store.readInbox(zone, stats[zone].epoch, { from: 'new' }, 1024);
    assert.equal(unread.status, 'ok');
    count +=
      stats[zone].entities + stats[zone].arriving + (unread.status === 'ok' ? unread.entries.length : 0);
  }
  return count;
}

describe('ZoneRunner', () => {
  it('hands entities between two zones on the clock with none lost or doubled', async () => {
    const w = world();
    const runners = await Promise.all([ZoneRunner.start(w.options(0)), ZoneRunner.start(w.options(1))]);
    await sleep(2000);
    await Promise.all(runners.map((r) => r!.stop()));
    const stats = runners.map((r) => r!.stats());
    assert.ok(stats[0].commits + stats[1].commits > 5, `${stats[0].commits} + ${stats[1].commits} handoffs`);
    assert.equal(await population(w.store, stats), WANDERERS);
    const { byTick, problems } = ownersByTick(w.batches, new Map());
    assert.deepEqual(problems, []);
    // Every tick both zones published (wanderers move every tick): the world's population, none twice.
    const last = Math.min(stats[0].tick, stats[1].tick);
    let full = 0;
    for (const [tick, owners] of byTick)
      if (tick > 2 && tick <= last - 2 && owners.size === WANDERERS) full++;
    assert.ok(full > 30, `${full} ticks showed every wanderer`);
  });

  it('is taken over from its snapshot and inbox, and the old process fences itself', async () => {
    const w = world();
    const zone0 = (await ZoneRunner.start(w.options(0)))!;
    let fenced = false;
    const old = (await ZoneRunner.start({ ...w.options(1), onFenced: () => (fenced = true) }))!;
    await sleep(1000);
    assert.equal(await ZoneRunner.start(w.options(1, 'intruder')), null, 'the live lease is refused');
    const taken = (await ZoneRunner.start({ ...w.options(1, 'p1-new'), force: true }))!;
    assert.ok(taken.stats().epoch > old.stats().epoch);
    await sleep(1200);
    assert.ok(fenced, 'the old process learnt it lost the zone');
    assert.ok(old.stopping);
    await Promise.all([zone0.stop(), taken.stop()]);
    const a = zone0.stats();
    const b = taken.stats();
    // The snapshot may be up to snapshotTicks old, but no entity is lost or doubled.
    assert.equal(await population(w.store, [a, b]), WANDERERS);
    const epochs = new Map([[1, b.epoch]]);
    assert.deepEqual(ownersByTick(w.batches, epochs).problems, []);
    assert.ok(b.commits + a.commits > 0);
  });
});
