/**
 * Zone runners whose store fails under them (test/support/faulty-zone-store.ts around the embedded
 * store): calls that never reach it, calls it applied whose answer was lost, and an outage longer
 * than the lease TTL. The zones step on, no entity is lost or doubled (a commit whose answer was
 * lost is sent again and answered 'duplicate', never brought back), no zone is fenced, and each
 * outage is reported once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { prng } from '../../src/random/prng.js';
import { EmbeddedZoneFeed } from '../../src/zones/embedded-zone-feed.js';
import { EmbeddedZoneStore } from '../../src/zones/embedded-zone-store.js';
import { ZoneMap } from '../../src/zones/zone-map.js';
import { ZoneRunner, type ZoneRunnerStats } from '../../src/zones/zone-runner.js';
import { zoneCodecs } from '../../src/zones/zone-wire.js';
import { faultyZoneStore, type StoreFault, type StoreMethod } from '../support/faulty-zone-store.js';
import { testSeed } from '../support/seed.js';
import { until } from '../support/until.js';
import { collectFeedBatches, doubleOwners } from '../support/zone-feed-audit.js';
import { SIDE, zoneGame, zoneRules } from '../support/zone-game.js';

const SEED = testSeed('zone-runner-faults');
const WANDERERS = 40;
const TTL_MS = 600;
const codecs = zoneCodecs(zoneGame);

describe('ZoneRunner under store failures', () => {
  it('steps on, loses and doubles nothing, and is not fenced', async () => {
    const store = new EmbeddedZoneStore({ nowMs: Date.now });
    const feed = new EmbeddedZoneFeed();
    const map = ZoneMap.grid({ minX: 0, minY: 0, maxX: SIDE, maxY: SIDE }, 2, 1, 2, 1);
    const batches = collectFeedBatches(feed, 2, codecs);
    const random = prng(SEED);
    let phase: 'calm' | 'flaky' | 'down' = 'calm';
    let forced: StoreFault[] = [];
    const fault = (method: StoreMethod): StoreFault => {
      if (phase === 'down') return 'before';
      if (phase === 'calm') return 'none';
      // The first commits of the flaky phase: one applied with its answer lost, one never sent.
      if (method === 'commitHandoff' && forced.length > 0) return forced.shift()!;
      const r = random();
      const lose = method === 'commitHandoff' ? 0.3 : 0.1;
      return r < lose ? 'after' : r < 2 * lose ? 'before' : 'none';
    };
    const originMs = Date.now();
    const errors: string[][] = [[], []];
    let fenced = 0;
    const runners = await Promise.all(
      [0, 1].map(async (zone) => {
        const runner = await ZoneRunner.start({
          zone,
          processId: `p${zone}`,
          rules: zoneRules(zone, SEED, WANDERERS),
          map,
          handoff: { margin: 1, minDwellTicks: 5 },
          store: faultyZoneStore(store, fault),
          feed,
          codecs,
          originMs,
          snapshotTicks: 5,
          leaseTtlMs: TTL_MS,
          onError: (error, where) => errors[zone].push(`${where}: ${error}`),
          onFenced: () => fenced++,
        });
        return runner!;
      }),
    );
    try {
      await sleep(600);
      phase = 'flaky';
      forced = ['after', 'before'];
      await until('the forced commit faults', 5000, () => forced.length === 0);
      await sleep(1500);
      // Longer than the TTL: every lease lapses, and is renewed by its epoch afterwards.
      phase = 'down';
      const ticks = runners.map((r) => r.stats().tick);
      await sleep(TTL_MS + 300);
      for (let i = 0; i < 2; i++) {
        const stats = runners[i].stats();
        assert.ok(
          stats.storeFailing && stats.tick - ticks[i] >= 15,
          `zone ${i}: ${ticks[i]} → ${stats.tick}`,
        );
      }
      assert.equal(await store.lease(0), null, 'the leases lapsed');
      phase = 'calm';
      const handedOff = runners[0].stats().commits + runners[1].stats().commits;
      await until(
        'handoffs to resume',
        5000,
        () => runners[0].stats().commits + runners[1].stats().commits > handedOff,
      );
      await until('every commit to settle', 5000, () =>
        runners.every((r) => !r.stats().storeFailing && r.stats().inDoubtUnanswered === 0),
      );
    } finally {
      await Promise.all(runners.map((r) => r.stop()));
    }
    const stats: ZoneRunnerStats[] = runners.map((r) => r.stats());
    assert.equal(fenced, 0, 'no zone was fenced');
    let count = 0;
    for (const zone of [0, 1]) {
      const { epoch } = stats[zone];
      assert.equal(epoch, 1);
      assert.equal(await store.renewLease(zone, epoch, TTL_MS), 'ok');
      const unread = await store.readInbox(zone, epoch, { from: 'new' }, 1024);
      const pending = await store.readInbox(
        zone,
        epoch,
        { from: 'pending', after: stats[zone].inboxRead },
        1024,
      );
      assert.ok(unread.status === 'ok' && pending.status === 'ok');
      // Pending past what the runner read: unread a moment ago, or read by a call whose answer was lost.
      count += stats[zone].entities + stats[zone].arriving + pending.entries.length;
      assert.ok(stats[zone].storeOutages >= 2, `zone ${zone}: ${stats[zone].storeOutages} outages`);
      assert.equal(errors[zone].length, stats[zone].storeOutages, 'one report per outage');
    }
    assert.equal(count, WANDERERS, 'every wanderer is owned, arriving or in an inbox, once');
    assert.deepEqual(doubleOwners(batches), []);
    const inDoubt = stats[0].inDoubtCommits + stats[1].inDoubtCommits;
    // Sent again, one whose answer was lost is a duplicate (or 'not-owner', had it moved on already).
    const landed = [0, 1].reduce(
      (sum, i) =>
        sum + (stats[i].commitsRefused.duplicate ?? 0) + (stats[i].commitsRefused['not-owner'] ?? 0),
      0,
    );
    assert.ok(inDoubt >= 1, `${inDoubt} commits were in doubt`);
    assert.ok(landed >= 1, 'a commit whose answer was lost was found to have landed when sent again');
    assert.equal(stats[0].handoffsReturned + stats[1].handoffsReturned, 0, 'none came back on a rejection');
    assert.ok(stats[0].pausedTicks + stats[1].pausedTicks > 20);
  });
});
