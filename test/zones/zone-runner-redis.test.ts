/**
 * Zone runners over a real redis-server (RedisZoneStore and RedisZoneFeed, each runner with its own
 * connections as a process of its own), the server keeping an AOF fsynced on every write. Entities
 * cross three zones with none lost or doubled; the server goes away for longer than the lease TTL
 * (SHUTDOWN, then kill -9) and comes back: the zones step on meanwhile, hand off again after, lose
 * and double nothing, and none is fenced (a lapsed lease is renewed by its epoch). When another
 * process takes a zone over after the restart instead, the old one fences itself.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { RedisZoneFeed } from '../../src/zones/redis-zone-feed.js';
import { RedisZoneStore } from '../../src/zones/redis-zone-store.js';
import { feedChannel } from '../../src/zones/zone-channels.js';
import { ZoneMap } from '../../src/zones/zone-map.js';
import type { FeedBatch } from '../../src/zones/zone-messages.js';
import { ZoneRunner, type ZoneRunnerStats } from '../../src/zones/zone-runner.js';
import { zoneCodecs } from '../../src/zones/zone-wire.js';
import { RedisServer, redisSkip } from '../support/redis.js';
import { testSeed } from '../support/seed.js';
import { until } from '../support/until.js';
import { doubleOwners } from '../support/zone-feed-audit.js';
import { SIDE, zoneGame, zoneRules } from '../support/zone-game.js';

const SEED = testSeed('zone-runner-redis');
const WANDERERS = 40;
const ZONES = [0, 1, 2];
const TTL_MS = 1000;
/** Longer than the TTL: every lease lapses during the outage. */
const OUTAGE_MS = 1500;
const codecs = zoneCodecs(zoneGame);
const quiet = () => {};

/** One zone process: its own store and feed connections, its runner, what it reported. */
interface Process {
  runner: ZoneRunner;
  store: RedisZoneStore;
  feed: RedisZoneFeed;
  errors: string[];
  fenced: boolean;
}

describe('ZoneRunner on Redis', { skip: redisSkip() }, () => {
  let server: RedisServer;
  let worlds = 0;
  const closers: (() => Promise<void>)[] = [];
  before(async () => {
    server = await RedisServer.start({ appendOnly: true });
  });
  after(async () => {
    for (const close of closers) await close();
    await server?.dispose();
  });

  /** A world on its own key prefix: an observer that collects the feed, and a way to start zones. */
  async function world() {
    worlds += 1;
    const keyPrefix = `zr-${worlds}:`;
    const connection = { url: server.url, keyPrefix, timeoutMs: 5000 };
    const feedOptions = { ...connection, keyPrefix: `${keyPrefix}feed:`, onError: quiet };
    const map = ZoneMap.grid({ minX: 0, minY: 0, maxX: SIDE, maxY: SIDE }, ZONES.length, 1, ZONES.length, 1);
    const originMs = Date.now();
    const observer = await RedisZoneStore.connect(connection);
    const watch = await RedisZoneFeed.connect(feedOptions);
    closers.push(
      () => observer.close(),
      () => watch.close(),
    );
    const batches: FeedBatch[] = [];
    for (const zone of ZONES)
      watch.subscribe(feedChannel('gw.', zone), (bytes) => {
        const read = codecs.decodeFeedBatch(bytes);
        if (read.ok) batches.push(read.value);
      });
    await watch.whenSubscribed();
    const start = async (zone: number, processId: string, force = false): Promise<Process> => {
      const store = await RedisZoneStore.connect(connection);
      const feed = await RedisZoneFeed.connect(feedOptions);
      closers.push(
        () => store.close(),
        () => feed.close(),
      );
      const zoneProcess = { store, feed, errors: [] as string[], fenced: false } as Process;
      const runner = await ZoneRunner.start({
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
        leaseTtlMs: TTL_MS,
        force,
        onError: (error, where) => zoneProcess.errors.push(`${where}: ${error}`),
        onFenced: () => {
          zoneProcess.fenced = true;
        },
      });
      assert.ok(runner !== null, `zone ${zone}: the lease was taken`);
      zoneProcess.runner = runner;
      // A test that fails midway leaves its runners stepping: stopped first, before their connections.
      closers.unshift(() => runner.stop());
      return zoneProcess;
    };
    return { observer, batches, start };
  }

  /** Waits until no zone has a store failure or a commit in doubt, then stops them all. */
  async function settleAndStop(processes: Process[]): Promise<ZoneRunnerStats[]> {
    await until('the stores to answer and every commit to settle', 5000, () =>
      processes.every(({ runner }) => {
        const stats = runner.stats();
        return !stats.storeFailing && stats.inDoubtUnanswered === 0;
      }),
    );
    await Promise.all(processes.map(({ runner }) => runner.stop()));
    return processes.map(({ runner }) => runner.stats());
  }

  /**
   * Entities owned, waiting to enter, committed and not read yet, and read by a call whose answer
   * was lost (pending past what the runner read), over every zone's live (stopped) runner.
   */
  async function population(store: RedisZoneStore, stats: ZoneRunnerStats[]): Promise<number> {
    let count = 0;
    for (let zone = 0; zone < stats.length; zone++) {
      const { epoch } = stats[zone];
      // The stopped runner's lease may have lapsed: its epoch renews it, as the runner would.
      assert.equal(await store.renewLease(zone, epoch, TTL_MS), 'ok', `zone ${zone}'s lease`);
      const unread = await store.readInbox(zone, epoch, { from: 'new' }, 1024);
      const lost = await store.readInbox(
        zone,
        epoch,
        { from: 'pending', after: stats[zone].inboxRead },
        1024,
      );
      assert.ok(unread.status === 'ok' && lost.status === 'ok');
      count += stats[zone].entities + stats[zone].arriving + unread.entries.length;
      // The unread ones are pending now too.
      count += lost.entries.filter((entry) => !unread.entries.some((u) => u.cursor === entry.cursor)).length;
    }
    return count;
  }

  const commits = (processes: Process[]) =>
    processes.reduce((sum, { runner }) => sum + runner.stats().commits, 0);

  it('hands entities between three zones with none lost or doubled', async () => {
    const w = await world();
    const processes = await Promise.all(ZONES.map((zone) => w.start(zone, `p${zone}`)));
    await sleep(2500);
    const stats = await settleAndStop(processes);
    assert.ok(commits(processes) > 10, `${commits(processes)} handoffs committed`);
    assert.equal(await population(w.observer, stats), WANDERERS);
    assert.deepEqual(doubleOwners(w.batches, new Map()), []);
    assert.ok(w.batches.length > 100, `${w.batches.length} feed batches seen`);
    for (const p of processes) assert.deepEqual(p.errors, []);
  });

  for (const how of ['SHUTDOWN', 'kill -9'] as const) {
    it(`steps on through an outage longer than the TTL (${how}), then hands off again, fencing none`, async () => {
      const w = await world();
      const processes = await Promise.all(ZONES.map((zone) => w.start(zone, `p${zone}`)));
      await sleep(1500);
      const ticksBefore = processes.map(({ runner }) => runner.stats().tick);
      if (how === 'SHUTDOWN') await server.shutdown();
      else await server.stop();
      await sleep(OUTAGE_MS);
      const during = processes.map(({ runner }) => runner.stats());
      await server.startAgain();
      for (let i = 0; i < processes.length; i++) {
        // 1.5 s at 30 Hz is 45 ticks: the zone kept its clock without the store.
        assert.ok(during[i].tick - ticksBefore[i] >= 30, `zone ${i}: ${ticksBefore[i]} → ${during[i].tick}`);
        assert.ok(during[i].storeFailing, `zone ${i} saw the store fail`);
        assert.ok(during[i].pausedTicks >= 20, `zone ${i}: ${during[i].pausedTicks} ticks paused`);
      }
      const committed = commits(processes);
      await until('handoffs to resume after the restart', 8000, () => commits(processes) >= committed + 3);
      await sleep(1000);
      assert.ok(
        processes.every((p) => !p.fenced && !p.runner.stopping),
        'no zone was fenced',
      );
      const stats = await settleAndStop(processes);
      for (let i = 0; i < stats.length; i++) {
        assert.equal(stats[i].epoch, 1, `zone ${i} kept its epoch`);
        assert.ok(
          stats[i].storeOutages >= 1 && stats[i].storeOutages <= 2,
          `zone ${i}: ${stats[i].storeOutages}`,
        );
        // One report per outage, not one per failed call.
        assert.equal(processes[i].errors.length, stats[i].storeOutages, processes[i].errors.join('\n'));
        assert.ok(stats[i].storeFailures > stats[i].storeOutages);
      }
      assert.equal(await population(w.observer, stats), WANDERERS);
      assert.deepEqual(doubleOwners(w.batches, new Map()), []);
    });
  }

  it('fences a zone another process took over after a long outage; the new one restores it', async () => {
    const w = await world();
    const processes = await Promise.all(ZONES.map((zone) => w.start(zone, `p${zone}`)));
    await sleep(1500);
    await server.shutdown();
    await sleep(OUTAGE_MS);
    await server.startAgain();
    // A supervisor that saw zone 1's process go quiet starts another one for it.
    const taken = await w.start(1, 'p1-new', true);
    const old = processes[1];
    assert.ok(taken.runner.stats().epoch > old.runner.stats().epoch);
    await until('the old process to fence itself', 5000, () => old.fenced);
    assert.ok(old.runner.stopping);
    const live = [processes[0], taken, processes[2]];
    const committed = commits(live);
    await until('handoffs to resume after the takeover', 8000, () => commits(live) >= committed + 3);
    await sleep(1000);
    assert.ok(
      live.every((p) => !p.fenced),
      'only the old process was fenced',
    );
    const stats = await settleAndStop(live);
    assert.equal(await population(w.observer, stats), WANDERERS);
    assert.deepEqual(doubleOwners(w.batches, new Map([[1, stats[1].epoch]])), []);
  });
});
