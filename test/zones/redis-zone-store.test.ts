/**
 * RedisZoneStore beyond the shared contract: leases lapse on the server's own clock, payloads and
 * snapshots of any bytes come back exactly, a snapshot acks more inbox entries than one batch of the
 * script holds, damaged records read as absent (never thrown out), and worlds on different key
 * prefixes sharing one server see nothing of each other. The world's record (origin and fingerprint)
 * is the first claim's.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { RedisZoneStore } from '../../src/zones/redis-zone-store.js';
import { RedisServer, redisSkip } from '../support/redis.js';
import { commitOf, worldIdOf } from '../support/zone-store-contract-shared.js';

describe('RedisZoneStore', { skip: redisSkip() }, () => {
  let server: RedisServer;
  const stores: RedisZoneStore[] = [];
  const storeOn = async (keyPrefix: string, limits = {}) => {
    const store = await RedisZoneStore.connect({ url: server.url, keyPrefix, limits });
    stores.push(store);
    return store;
  };
  before(async () => {
    server = await RedisServer.start();
  });
  after(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await server?.dispose();
  });

  it("lapses a lease on the server's clock, with no offset and no caller clock", async () => {
    const store = await storeOn('ttl:');
    const lease = (await store.acquireLease(0, 'proc-a', 150))!;
    assert.equal((await store.lease(0))?.epoch, lease.epoch);
    const raw = new Redis(server.url);
    try {
      const [seconds, micros] = await raw.time();
      const serverNowMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
      assert.ok(Math.abs(lease.expiresAtMs - (serverNowMs + 150)) < 1000, 'expiry is server time + ttl');
    } finally {
      raw.disconnect();
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await store.lease(0), null);
    assert.equal((await store.acquireLease(0, 'proc-b', 150))?.epoch, lease.epoch + 1);
    assert.equal(
      await store.renewLease(0, lease.epoch, 150),
      'stale',
      'fenced by the acquire after the lapse',
    );
  });

  it('gives back payloads and snapshots of any bytes exactly, as plain Uint8Arrays', async () => {
    const store = await storeOn('bytes:');
    const a = (await store.acquireLease(0, 'proc-a', 60_000))!.epoch;
    const b = (await store.acquireLease(1, 'proc-b', 60_000))!.epoch;
    const payloads = [
      new Uint8Array(0),
      Uint8Array.of(0),
      Uint8Array.from({ length: 256 }, (_, i) => i),
      Uint8Array.of(0xc3, 0x28, 0xff, 0xfe, 0xed, 0xa0, 0x80),
      new Uint8Array(randomBytes(64 * 1024)),
    ];
    for (const [n, payload] of payloads.entries()) {
      const commit = commitOf({ worldId: worldIdOf(0, n + 1), from: 0, fromEpoch: a, to: 1, payload });
      assert.equal(await store.commitHandoff(commit), 'ok');
    }
    const read = await store.readInbox(1, b, { from: 'new' }, 10);
    assert.ok(read.status === 'ok');
    assert.deepEqual(
      read.entries.map((entry) => entry.payload),
      payloads,
    );
    assert.ok(read.entries.every((entry) => Object.getPrototypeOf(entry.payload) === Uint8Array.prototype));
    for (const bytes of payloads) {
      assert.equal(await store.writeSnapshot(1, b, 5, 0, bytes), 'ok');
      const snapshot = (await store.readSnapshot(1))!;
      assert.deepEqual(snapshot.bytes, bytes);
      assert.equal(Object.getPrototypeOf(snapshot.bytes), Uint8Array.prototype);
    }
  });

  it('acks every read entry up to the cursor, however many', async () => {
    const count = 1234;
    const store = await storeOn('many:', { maxInboxEntries: 2000 });
    const a = (await store.acquireLease(0, 'proc-a', 60_000))!.epoch;
    const b = (await store.acquireLease(1, 'proc-b', 60_000))!.epoch;
    for (let n = 1; n <= count; n++) {
      const commit = commitOf({ worldId: worldIdOf(0, n), from: 0, fromEpoch: a, to: 1, tick: n });
      assert.equal(await store.commitHandoff(commit), 'ok');
    }
    const cursors: number[] = [];
    for (;;) {
      const read = await store.readInbox(1, b, { from: 'new' }, 1000);
      assert.ok(read.status === 'ok');
      if (read.entries.length === 0) break;
      cursors.push(...read.entries.map((entry) => entry.cursor));
    }
    assert.equal(cursors.length, count);
    assert.equal(await store.writeSnapshot(1, b, 9, cursors[count - 2], Uint8Array.of()), 'ok');
    const left = await store.readInbox(1, b, { from: 'pending', after: 0 }, 1000);
    assert.deepEqual(left.status === 'ok' && left.entries.map((entry) => entry.cursor), [cursors[count - 1]]);
  });

  it('moves an entity once when connections race to commit it to different zones', async () => {
    const racers = [await storeOn('race:'), await storeOn('race:'), await storeOn('race:')];
    const a = (await racers[0].acquireLease(0, 'proc-a', 60_000))!.epoch;
    const destinations = [1, 2, 3, 4];
    const epochs = new Map<number, number>();
    for (const zone of destinations)
      epochs.set(zone, (await racers[0].acquireLease(zone, `p${zone}`, 60_000))!.epoch);
    for (let n = 1; n <= 20; n++) {
      const worldId = worldIdOf(0, n);
      const results = await Promise.all(
        destinations.flatMap((to, i) =>
          racers.map((store) =>
            store.commitHandoff(commitOf({ worldId, from: 0, fromEpoch: a, to, tick: i })),
          ),
        ),
      );
      const oks = results.filter((result) => result === 'ok').length;
      assert.equal(oks, 1, `entity ${n}: ${results}`);
      assert.ok(results.every((result) => ['ok', 'duplicate', 'not-owner'].includes(result)));
      const [owner] = await racers[1].owners([worldId]);
      assert.equal(owner.hseq, 1);
      assert.ok(destinations.includes(owner.zone));
    }
    let landed = 0;
    for (const zone of destinations) {
      const read = await racers[2].readInbox(zone, epochs.get(zone)!, { from: 'new' }, 100);
      assert.ok(read.status === 'ok');
      const owners = await racers[2].owners(read.entries.map((entry) => entry.worldId));
      assert.ok(
        owners.every((owner) => owner.zone === zone),
        'each entry is in its owner zone inbox',
      );
      landed += read.entries.length;
    }
    assert.equal(landed, 20, 'one inbox entry per entity, no more');
  });

  it('reads damaged records as absent, counts them, and never throws them out', async () => {
    const store = await storeOn('bad:');
    const raw = new Redis(server.url);
    try {
      const a = (await store.acquireLease(0, 'proc-a', 60_000))!.epoch;
      const b = (await store.acquireLease(1, 'proc-b', 60_000))!.epoch;
      assert.equal(await store.commitHandoff(commitOf({ from: 0, fromEpoch: a, to: 1 })), 'ok');
      // A foreign entry with a good id but a bad world id, then one missing its payload.
      await raw.xadd('bad:zone:1:inbox', '100-0', 'w', 'nope', 'f', '0', 'h', '1', 't', '1', 'p', 'x');
      await raw.xadd('bad:zone:1:inbox', '101-0', 'w', '5', 'f', '0', 'h', '1', 't', '1');
      await raw.hset('bad:zone:2:snapshot', 'epoch', 'one', 'tick', '1', 'cursor', '0', 'bytes', 'x');
      await raw.hset('bad:zone:3:lease', 'processId', 'p', 'epoch', 'x', 'expiresAt', '99999999999999');
      await raw.hset('bad:owners', `${worldIdOf(0, 7)}`, 'garbage');
      const read = await store.readInbox(1, b, { from: 'new' }, 10);
      assert.ok(read.status === 'ok');
      assert.deepEqual(
        read.entries.map((entry) => entry.worldId),
        [worldIdOf(0, 1)],
      );
      assert.equal(await store.readSnapshot(2), null);
      assert.equal(await store.lease(3), null);
      assert.deepEqual(await store.owners([worldIdOf(0, 7)]), [{ zone: 0, hseq: 0 }]);
      assert.equal(store.stats().damagedRecords, 5);
      // A damaged owner record refuses the handoff rather than guessing.
      assert.equal(
        await store.commitHandoff(commitOf({ worldId: worldIdOf(0, 7), from: 0, fromEpoch: a, to: 1 })),
        'not-owner',
      );
    } finally {
      raw.disconnect();
    }
  });

  it("keeps the first claim of the world's origin and fingerprint; a damaged one rejects", async () => {
    const store = await storeOn('claim:');
    const first = { originMs: 1_795_000_000_000, fingerprint: '{"game":"a"}' };
    assert.deepEqual(await store.claimWorld(first), first);
    assert.deepEqual(await store.claimWorld({ originMs: 5, fingerprint: 'other' }), first);
    await assert.rejects(store.claimWorld({ originMs: -1, fingerprint: 'x' }), RangeError);
    await assert.rejects(store.claimWorld({ originMs: 0, fingerprint: 'x'.repeat(4097) }), RangeError);
    const raw = new Redis(server.url);
    try {
      await raw.hset('claim:world', 'origin', 'soon');
      await assert.rejects(store.claimWorld(first), /damaged/);
    } finally {
      raw.disconnect();
    }
  });

  it('leases gateway indexes: the lowest free, renewed, fenced after a lapse and a new claim, released', async () => {
    const store = await storeOn('gateways:');
    const a = (await store.claimGateway('proc-a', 60_000))!;
    const b = (await store.claimGateway('proc-b', 100))!;
    assert.deepEqual([a.gateway, b.gateway], [0, 1]);
    assert.equal(await store.renewGateway(b, 100), 'ok');
    await new Promise((resolve) => setTimeout(resolve, 250));
    const c = (await store.claimGateway('proc-c', 60_000))!;
    assert.equal(c.gateway, 1, 'the lapsed index is the lowest free');
    assert.equal(await store.renewGateway(b, 100), 'stale', 'fenced by the new claim');
    assert.equal(await store.releaseGateway(a), 'ok');
    assert.equal((await store.claimGateway('proc-d', 60_000))?.gateway, 0);
    for (let n = 3; n <= 256; n++) assert.ok((await store.claimGateway(`proc-${n}`, 60_000)) !== null);
    assert.equal(await store.claimGateway('one-too-many', 60_000), null);
  });

  it('keeps worlds on different key prefixes apart', async () => {
    const one = await storeOn('world-1:');
    const two = await storeOn('world-2:');
    const a = (await one.acquireLease(0, 'proc-a', 60_000))!.epoch;
    assert.equal(await two.lease(0), null);
    assert.equal((await two.acquireLease(0, 'proc-b', 60_000))?.epoch, 1);
    assert.equal(await one.commitHandoff(commitOf({ from: 0, fromEpoch: a, to: 1 })), 'ok');
    assert.equal(await one.writeSnapshot(0, a, 3, 0, Uint8Array.of(3)), 'ok');
    assert.deepEqual(await two.owners([worldIdOf(0, 1)]), [{ zone: 0, hseq: 0 }]);
    assert.equal(await two.readSnapshot(0), null);
  });
});
