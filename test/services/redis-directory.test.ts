/**
 * RedisDirectory beyond the shared contract: damaged entries read as absent (never thrown out),
 * and fleets on different key prefixes sharing one server see nothing of each other.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { PROCESS_GONE } from '../../src/services/directory.js';
import { RedisDirectory } from '../../src/services/redis-directory.js';
import { processRecord, roomListing, seatRequest, until } from '../support/directory-contract.js';
import { RedisServer, redisSkip } from '../support/redis.js';

describe('RedisDirectory', { skip: redisSkip() }, () => {
  let server: RedisServer;
  before(async () => {
    server = await RedisServer.start();
  });
  after(async () => {
    await server?.dispose();
  });

  it('reads damaged entries as absent', async () => {
    const raw = new Redis(server.url);
    const directory = await RedisDirectory.connect({ url: server.url, keyPrefix: 'bad:' });
    try {
      await directory.registerProcess(processRecord('p1'), 60_000);
      await directory.registerProcess(processRecord('p2'), 60_000);
      await directory.createRoom(roomListing('r1', 'p1'));
      await directory.createRoom(roomListing('r2', 'p1'));
      await directory.reserveSeat('r1', seatRequest('s1', 60_000));
      await directory.addTicket({
        ticketId: 't1',
        userIds: ['u1'],
        pool: 'duel',
        skill: 1,
        properties: {},
        createdAt: 1,
      });
      await raw.hset('bad:proc:p2', 'load', '{"rooms":');
      await raw.hset('bad:room:r2', 'metadata', 'not json');
      await raw.hset('bad:seat:s1', 'expiresAt', 'soon');
      await raw.hset('bad:tickets', 't2', '[1,2');
      await raw.sadd('bad:pool:duel', 't2');
      await raw.set('bad:ticket-result:t3', '{"state":"matched"}');

      assert.equal(await directory.getProcess('p2'), null);
      assert.deepEqual(
        (await directory.listProcesses()).map((p) => p.processId),
        ['p1'],
      );
      assert.equal(await directory.getRoom('r2'), null);
      assert.deepEqual(
        (await directory.findRooms({})).map((r) => r.roomId),
        ['r1'],
      );
      assert.equal(await directory.getSeat('s1'), null);
      assert.deepEqual(await directory.consumeSeat('s1', 'r1'), { ok: false, reason: 'expired' });
      assert.deepEqual(
        (await directory.listTickets('duel')).map((t) => t.ticketId),
        ['t1'],
      );
      assert.deepEqual(
        (await directory.listTickets()).map((t) => t.ticketId),
        ['t1'],
      );
      assert.deepEqual(await directory.ticketStatus('t2'), { state: 'unknown' });
      assert.deepEqual(await directory.ticketStatus('t3'), { state: 'unknown' });
    } finally {
      raw.disconnect();
      await directory.close();
    }
  });

  it('keeps fleets on different key prefixes apart, messages included', async () => {
    const a = await RedisDirectory.connect({ url: server.url, keyPrefix: 'fleet-a:' });
    const b = await RedisDirectory.connect({ url: server.url, keyPrefix: 'fleet-b:' });
    try {
      const heardA: string[] = [];
      const heardB: string[] = [];
      await a.subscribe(PROCESS_GONE, (m) => heardA.push(m));
      await b.subscribe(PROCESS_GONE, (m) => heardB.push(m));
      await a.registerProcess(processRecord('p1'), 60_000);
      await a.createRoom(roomListing('r1', 'p1'));
      assert.equal(await b.getProcess('p1'), null);
      assert.deepEqual(await b.findRooms({}), []);
      assert.equal(await b.createRoom(roomListing('r1', 'p1')), false, 'p1 is not registered in fleet b');
      await a.removeProcess('p1');
      await until(() => heardA.length === 1, "fleet a's PROCESS_GONE");
      const marks: string[] = [];
      await b.subscribe('marker', (m) => marks.push(m));
      await b.publish('marker', 'm');
      await until(() => marks.length === 1, 'the marker');
      assert.deepEqual(heardB, []);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("keeps a user's seat set no larger than its live seats: released, removed and lapsed ones leave it", async () => {
    const raw = new Redis(server.url);
    const directory = await RedisDirectory.connect({ url: server.url, keyPrefix: 'users:' });
    const limits = { perRoom: 1, perUser: 3 };
    const reserve = (roomId: string, seatId: string, ttlMs: number) =>
      directory.reserveSeat(roomId, { ...seatRequest(seatId, ttlMs), userId: 'ann', limits });
    try {
      await directory.registerProcess(processRecord('p1'), 60_000);
      for (const r of ['r1', 'r2', 'r3']) await directory.createRoom(roomListing(r, 'p1'));
      assert.equal((await reserve('r1', 's1', 60_000)).ok, true);
      assert.equal((await reserve('r2', 's2', 60_000)).ok, true);
      assert.equal((await directory.consumeSeat('s2', 'r2')).ok, true);
      assert.deepEqual((await raw.smembers('users:user:ann:seats')).sort(), ['s1', 's2']);
      assert.equal(await raw.pttl('users:user:ann:seats'), -1, 'kept while a seat is taken');
      await directory.releaseSeat('s1');
      await directory.removeRoom('r2');
      assert.equal(await raw.exists('users:user:ann:seats'), 0, 'released and removed seats leave it');
      // A reservation that lapses unused: its id is dropped at the user's next reservation, and the
      // set itself expires with the seat's record (ttl + 60 s) if there is none.
      assert.equal((await reserve('r1', 's3', 100)).ok, true);
      const left = await raw.pttl('users:user:ann:seats');
      assert.ok(left > 0 && left <= 100 + 60_000, `expires: ${left} ms`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal((await reserve('r3', 's4', 60_000)).ok, true);
      assert.deepEqual(await raw.smembers('users:user:ann:seats'), ['s4']);
    } finally {
      raw.disconnect();
      await directory.close();
    }
  });
});
