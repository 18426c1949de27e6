/**
 * Zones in worker threads under the supervisor, over the main thread's embedded store and feed
 * hub: entities cross zones run by different threads with one owner per tick; a crashed thread's
 * zones are taken over from their snapshots with no entity lost or doubled; a zone moved to a
 * thread of its own keeps every entity.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { EmbeddedZoneStore } from '../../src/zones/embedded-zone-store.js';
import { FeedHub } from '../../src/zones/zone-feed-hub.js';
import { ZoneMap } from '../../src/zones/zone-map.js';
import type { ZoneStore } from '../../src/zones/zone-store.js';
import { ZoneSupervisor } from '../../src/zones/zone-supervisor.js';
import { zoneCodecs } from '../../src/zones/zone-wire.js';
import { testSeed } from '../support/seed.js';
import { collectFeedBatches, doubleOwners } from '../support/zone-feed-audit.js';
import { SIDE, zoneGame } from '../support/zone-game.js';

const SEED = testSeed('zone-supervisor');
process.env.GW_ZONE_TEST_SEED = String(SEED);
process.env.GW_ZONE_TEST_WANDERERS = '60';
const WANDERERS = 60;
const codecs = zoneCodecs(zoneGame);
const rulesUrl = new URL('../support/zone-rules-module.js', import.meta.url).href;

/** Entities in every zone's last snapshot plus those in its inbox after it (read with a lease of the test's). */
async function population(store: ZoneStore, zones: number): Promise<number> {
  let count = 0;
  for (let zone = 0; zone < zones; zone++) {
    const lease = await store.acquireLease(zone, 'census', 1000, true);
    const snapshot = await store.readSnapshot(zone);
    let cursor = 0;
    if (snapshot !== null) {
      const read = codecs.decodeZoneSnapshot(snapshot.bytes);
      assert.ok(read.ok);
      count += read.value.entities.length;
      cursor = snapshot.inboxCursor;
    }
    const pending = await store.readInbox(zone, lease!.epoch, { from: 'pending', after: cursor }, 1024);
    const fresh = await store.readInbox(zone, lease!.epoch, { from: 'new' }, 1024);
    for (const read of [pending, fresh]) if (read.status === 'ok') count += read.entries.length;
  }
  return count;
}

async function world(policy?: { hotShare: number; hotSeconds: number }) {
  const store = new EmbeddedZoneStore({ nowMs: Date.now });
  const hub = new FeedHub();
  const map = ZoneMap.grid({ minX: 0, minY: 0, maxX: SIDE, maxY: SIDE }, 2, 2, 2, 2);
  const batches = collectFeedBatches(hub, 4, codecs);
  const events: string[] = [];
  const supervisor = await ZoneSupervisor.start({
    rulesUrl,
    map,
    handoff: { margin: 1, minDwellTicks: 5 },
    originMs: Date.now(),
    tickRate: zoneGame.tickRate,
    engine: { kind: 'embedded', store, hub },
    threads: 2,
    maxThreads: 3,
    runner: { snapshotTicks: 5, leaseTtlMs: 1000 },
    onEvent: (event) => events.push(event),
    ...(policy === undefined ? {} : { policy }),
  });
  return { store, hub, map, batches, supervisor, events };
}

describe('ZoneSupervisor', () => {
  const closers: (() => Promise<void>)[] = [];
  after(async () => {
    for (const close of closers) await close();
  });

  it('runs four zones in two threads: entities cross threads with one owner per tick, none lost', async () => {
    const w = await world();
    closers.push(() => w.supervisor.close());
    assert.equal(w.supervisor.stats().threads, 2);
    await sleep(2500);
    const zones = w.supervisor.list();
    assert.equal(zones.length, 4);
    const commits = zones.reduce((sum, z) => sum + (z.report?.commits ?? 0), 0);
    assert.ok(commits > 10, `${commits} handoffs`);
    await w.supervisor.close();
    assert.deepEqual(doubleOwners(w.batches), []);
    assert.equal(await population(w.store, 4), WANDERERS);
  });

  it('takes a crashed thread’s zones over from their snapshots, and moves a zone to a thread of its own', async () => {
    const w = await world();
    closers.push(() => w.supervisor.close());
    await sleep(1000);
    const before = w.supervisor.list().find((z) => z.zone === 1)!;
    await w.supervisor.crash(1);
    const taken = w.supervisor.list().find((z) => z.zone === 1)!;
    assert.ok(taken.epoch > before.epoch, 'a new epoch fences the dead thread');
    assert.equal(w.supervisor.stats().restarts, 1);
    await sleep(800);
    await w.supervisor.move(2);
    assert.equal(w.supervisor.stats().threads, 3);
    assert.equal(w.supervisor.stats().moves, 1);
    await sleep(1000);
    await w.supervisor.close();
    assert.deepEqual(doubleOwners(w.batches), []);
    assert.equal(await population(w.store, 4), WANDERERS, w.events.join('; '));
  });

  it('moves a hot zone that shares a thread to one of its own, by the load policy', async () => {
    // Every zone counts as hot at once (any tick time is over 0.01% of the budget): one move, then the thread cap.
    const w = await world({ hotShare: 0.0001, hotSeconds: 1 });
    closers.push(() => w.supervisor.close());
    const deadline = Date.now() + 10_000;
    while (w.supervisor.stats().moves === 0 && Date.now() < deadline) await sleep(100);
    assert.equal(w.supervisor.stats().moves, 1, w.events.join('; '));
    await sleep(1500);
    assert.equal(w.supervisor.stats().threads, 3, 'at most maxThreads: one move only');
    assert.equal(w.supervisor.stats().moves, 1);
    await w.supervisor.close();
    assert.deepEqual(doubleOwners(w.batches), []);
    assert.equal(await population(w.store, 4), WANDERERS);
  });
});
