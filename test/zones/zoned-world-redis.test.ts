/**
 * A zoned world over a real redis-server, as over machines. Processes of another map or origin are
 * refused. Then this process runs the gateway and
 * zones 0 and 1, a child process zones 2 and 3, a third stands by for 2 and 3. A player plays
 * across borders; the child is killed with SIGKILL; the standby takes zones 2 and 3 over from
 * their snapshots once their leases lapse, and the player stays connected with every entity kept.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import '../../src/node.js';
import { GameClient } from '../../src/game/game-client.js';
import { ZonedWorld } from '../../src/zones/zoned-world.js';
import { RedisServer, redisSkip } from '../support/redis.js';
import { testSeed } from '../support/seed.js';
import { until } from '../support/until.js';
import { SIDE, zoneGame } from '../support/zone-game.js';

const SEED = testSeed('zoned-world-redis');
process.env.GW_ZONE_TEST_SEED = String(SEED);
process.env.GW_ZONE_TEST_WANDERERS = '40';
const LEASE_MS = 1000;

const wanderers = (client: GameClient<typeof zoneGame>) =>
  client.entities.filter((e) => e.type === 'wanderer').length;

function machine(redis: string, originMs: number | undefined, zones: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      new URL('../support/zone-machine.js', import.meta.url).pathname,
      redis,
      originMs === undefined ? '-' : String(originMs),
      zones,
      String(LEASE_MS),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], env: process.env },
  );
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`zone machine exited with ${code}`)));
    child.stdout!.on('data', (data: Buffer) => {
      if (data.toString().includes('ready')) resolve(child);
    });
  });
}

describe('ZonedWorld over Redis, across processes', { skip: redisSkip() }, () => {
  let server: RedisServer;
  let world: ZonedWorld;
  const children: ChildProcess[] = [];
  before(async () => {
    server = await RedisServer.start({ appendOnly: true });
  });
  after(async () => {
    for (const child of children) child.kill('SIGKILL');
    await world?.close();
    await server.stop();
  });

  it("refuses a process of another map or origin: the world's first process keeps both in Redis", async () => {
    const base = {
      rules: new URL('../support/zone-rules-module.js', import.meta.url),
      bounds: { minX: 0, minY: 0, maxX: SIDE, maxY: SIDE },
      redis: server.url.replace(/\/?$/, '/3'), // a database of its own: the world below is another
      runZones: [],
      gateway: false,
    };
    const first = await ZonedWorld.start({ ...base, columns: 2, rows: 2, originMs: 1_000 });
    const second = await ZonedWorld.start({ ...base, columns: 2, rows: 2 });
    try {
      assert.equal(second.originMs, 1_000);
      await assert.rejects(ZonedWorld.start({ ...base, columns: 4, rows: 1 }), /holds another world/);
      await assert.rejects(
        ZonedWorld.start({ ...base, columns: 2, rows: 2, originMs: 2_000 }),
        /originMs 2000 is not this world's: its Redis keeps 1000/,
      );
    } finally {
      await first.close();
      await second.close();
    }
  });

  it("serves one world's players from two gateways, each with an index of its own", async () => {
    const base = {
      rules: new URL('../support/zone-rules-module.js', import.meta.url),
      bounds: { minX: 0, minY: 0, maxX: SIDE, maxY: SIDE },
      columns: 2,
      rows: 2,
      interestRadius: 200,
      handoff: { margin: 2, dwellSeconds: 0.3 },
      redis: server.url.replace(/\/?$/, '/4'),
      leaseTtlMs: LEASE_MS,
      port: 0,
      transports: ['udp' as const],
    };
    const one = await ZonedWorld.start(base);
    const two = await ZonedWorld.start({ ...base, runZones: [] });
    const clients = [
      await GameClient.connect(zoneGame, one.url),
      await GameClient.connect(zoneGame, two.url),
    ];
    const timer = setInterval(() => {
      clients[0].update({ dx: 1, dy: 0, tick: 0 });
      clients[1].update({ dx: 0, dy: 1, tick: 0 });
    }, 1000 / 60);
    const walkers = (client: GameClient<typeof zoneGame>) =>
      client.entities.filter((e) => e.type === 'walker' && e.id !== client.me?.id);
    try {
      await until('each player seeing the other walk', 10_000, () =>
        clients.every((client) => client.me !== null && walkers(client).length === 1),
      );
      const seen = walkers(clients[0])[0].state.y;
      await until(
        'the second player walking, as the first sees it',
        5000,
        () => walkers(clients[0])[0].state.y > seen + 2,
      );
      const [a, b] = clients.map((client) => client.me!.state);
      assert.ok(a.x > a.y && b.y > b.x, `each moved by its own inputs: ${JSON.stringify({ a, b })}`);
      for (const client of clients) assert.equal(client.stats().mispredictions, 0);
    } finally {
      clearInterval(timer);
      for (const client of clients) client.close();
      await two.close();
      await one.close();
    }
  });

  it('keeps every entity and the player when the process of two zones is killed and a standby takes them', async () => {
    const originMs = Date.now();
    const holder = await machine(server.url, originMs, '2,3');
    children.push(holder);
    world = await ZonedWorld.start({
      rules: new URL('../support/zone-rules-module.js', import.meta.url),
      bounds: { minX: 0, minY: 0, maxX: SIDE, maxY: SIDE },
      columns: 2,
      rows: 2,
      interestRadius: 200, // every entity in view: the client's count is the world's
      handoff: { margin: 2, dwellSeconds: 0.3 },
      redis: server.url,
      runZones: [0, 1],
      leaseTtlMs: LEASE_MS,
      snapshotTicks: 5,
      port: 0,
      transports: ['udp'],
    });
    assert.equal(world.originMs, originMs, "the world's origin, as its first process kept it in Redis");
    const standby = await machine(server.url, undefined, '2,3');
    children.push(standby);
    const client = await GameClient.connect(zoneGame, world.url);
    const timer = setInterval(() => client.update({ dx: 1, dy: 1, tick: 0 }), 1000 / 60);
    try {
      const everyone = 40 + 1;
      await until('every wanderer in view', 10_000, () => wanderers(client) === 40);
      await until(
        'the walker in zone 3',
        10_000,
        () => (client.me?.state.x ?? 0) > 60 && (client.me?.state.y ?? 0) > 60,
      );
      const ghost = client.me!.id;
      holder.kill('SIGKILL');
      await once(holder, 'exit');
      // The gateway stamps without zones 2 and 3 while no one runs them, then on time again once
      // the standby has taken them over (a stamp is on time only with every zone's batch).
      const gateway = () => world.stats().gateway!;
      const lateBefore = gateway().stampsLate;
      await until('stamps without zones 2 and 3', 5000, () => gateway().stampsLate > lateBefore + 3);
      const onTime = gateway().stampsOnTime;
      await until('the standby publishing zones 2 and 3', 15_000, () => gateway().stampsOnTime > onTime + 60);
      await until('every wanderer still in view', 10_000, () => wanderers(client) === 40);
      assert.equal(client.status, 'connected');
      assert.equal(client.me?.id, ghost, 'the same ghost after the takeover');
      assert.equal(world.stats().gateway!.entities, everyone);
    } finally {
      clearInterval(timer);
      client.close();
    }
  });
});
