/**
 * RedisZoneStore when the engine goes away: a redis-server with an AOF fsynced on every write is
 * stopped (SHUTDOWN, then kill -9) and started again on the same port and directory. While it is
 * down every call rejects promptly with a RedisUnavailableError; once it is back the same store
 * object works again and finds every lease, epoch, owner, inbox entry (pending and new) and
 * snapshot as it was. A stalled server (SIGSTOP) makes calls time out instead of hanging.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RedisUnavailableError } from '../../src/services/redis-directory.js';
import { RedisZoneStore } from '../../src/zones/redis-zone-store.js';
import type { ZoneStore } from '../../src/zones/zone-store.js';
import { RedisServer, redisSkip } from '../support/redis.js';
import { commitOf, worldIdOf } from '../support/zone-store-contract-shared.js';

const TTL_MS = 60_000;

/** Rejects within `ms`, with a RedisUnavailableError that names the store. */
async function rejectsPromptly(call: Promise<unknown>, ms: number, what: string): Promise<void> {
  const started = performance.now();
  await assert.rejects(call, (error: Error) => {
    assert.ok(error instanceof RedisUnavailableError, `${what}: ${error}`);
    assert.match(error.message, /^RedisZoneStore: Redis unavailable/);
    return true;
  });
  const took = performance.now() - started;
  assert.ok(took < ms, `${what} took ${took.toFixed(0)} ms to reject (limit ${ms} ms)`);
}

/** Retries `call` until it resolves (Redis is back and ioredis reconnected); fails after `ms`. */
async function eventually<T>(call: () => Promise<T>, what: string, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${what} still failing after ${ms} ms`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** Every byte value, so a payload that is not UTF-8 must come back exactly. */
const BINARY = Uint8Array.from({ length: 256 }, (_, i) => 255 - i);

/** Everything the store holds for zones 0..2 and a few entities, as plain values. */
async function everything(store: ZoneStore, epochs: number[]) {
  return {
    leases: await Promise.all([0, 1, 2].map((zone) => store.lease(zone))),
    owners: await store.owners([1, 2, 3, 4].map((n) => worldIdOf(0, n))),
    // Reading pending entries changes nothing, so it can be read before and after.
    pending: await store.readInbox(1, epochs[1], { from: 'pending', after: 0 }, 100),
    snapshots: await Promise.all([0, 1, 2].map((zone) => store.readSnapshot(zone))),
  };
}

describe('RedisZoneStore recovery', { skip: redisSkip() }, () => {
  let server: RedisServer;
  before(async () => {
    server = await RedisServer.start({ appendOnly: true });
  });
  after(async () => {
    await server?.dispose();
  });

  const stops: [string, () => Promise<void>][] = [
    ['SHUTDOWN', () => server.shutdown()],
    ['kill -9', () => server.stop()],
  ];
  for (const [how, stop] of stops) {
    it(`keeps leases, owners, inboxes and snapshots across a ${how} and restart`, async () => {
      const store = await RedisZoneStore.connect({ url: server.url, keyPrefix: `${how}:` });
      try {
        const a = (await store.acquireLease(0, 'proc-a', TTL_MS))!.epoch;
        const b = (await store.acquireLease(1, 'proc-b', TTL_MS))!.epoch;
        const fenced = (await store.acquireLease(2, 'proc-c', TTL_MS))!.epoch;
        const c = (await store.acquireLease(2, 'proc-c2', TTL_MS, true))!.epoch;
        for (let n = 1; n <= 3; n++) {
          const commit = commitOf({ worldId: worldIdOf(0, n), from: 0, fromEpoch: a, to: 1, tick: n });
          assert.equal(await store.commitHandoff({ ...commit, payload: BINARY.subarray(n) }), 'ok');
        }
        const read = await store.readInbox(1, b, { from: 'new' }, 2);
        assert.ok(read.status === 'ok' && read.entries.length === 2);
        assert.equal(await store.writeSnapshot(0, a, 70, 0, BINARY), 'ok');
        assert.equal(await store.writeSnapshot(1, b, 71, 0, Uint8Array.of(1, 0, 255)), 'ok');
        const held = await everything(store, [a, b, c]);
        assert.deepEqual(held.pending, read);
        assert.deepEqual(held.owners[3], { zone: 0, hseq: 0 });

        await stop();
        await rejectsPromptly(store.lease(0), 1500, 'lease while down');
        await rejectsPromptly(
          store.commitHandoff(commitOf({ worldId: worldIdOf(0, 4), from: 0, fromEpoch: a, to: 1 })),
          1500,
          'commitHandoff while down',
        );
        await rejectsPromptly(store.readInbox(1, b, { from: 'new' }, 10), 1500, 'readInbox while down');
        await rejectsPromptly(
          store.writeSnapshot(1, b, 80, 0, Uint8Array.of()),
          1500,
          'writeSnapshot while down',
        );
        await server.startAgain();

        assert.deepEqual(
          await eventually(() => everything(store, [a, b, c]), 'reading after the restart'),
          held,
        );
        assert.equal(await store.renewLease(2, fenced, TTL_MS), 'stale', 'a fenced epoch stays fenced');
        assert.equal(await store.renewLease(1, b, TTL_MS), 'ok');
        const fresh = await store.readInbox(1, b, { from: 'new' }, 10);
        assert.ok(fresh.status === 'ok');
        assert.deepEqual(
          fresh.entries.map(({ worldId, tick, payload }) => ({ worldId, tick, payload })),
          [{ worldId: worldIdOf(0, 3), tick: 3, payload: BINARY.subarray(3) }],
          'the entry never read is still new',
        );
        // Cursors and epochs go on from where they were: none is reused.
        const fourth = commitOf({ worldId: worldIdOf(0, 4), from: 0, fromEpoch: a, to: 1 });
        assert.equal(await store.commitHandoff(fourth), 'ok');
        const last = await store.readInbox(1, b, { from: 'new' }, 10);
        assert.ok(last.status === 'ok' && last.entries[0].cursor > fresh.entries[0].cursor);
        assert.equal((await store.acquireLease(2, 'proc-c3', TTL_MS, true))?.epoch, c + 1);
        assert.equal(await store.writeSnapshot(1, b, 90, last.entries[0].cursor, Uint8Array.of(9)), 'ok');
        assert.deepEqual(await store.readInbox(1, b, { from: 'pending', after: 0 }, 10), {
          status: 'ok',
          entries: [],
        });
      } finally {
        await store.close();
      }
    });
  }

  it('rejects instead of hanging when Redis stalls, and answers again when it resumes', async () => {
    const store = await RedisZoneStore.connect({
      url: server.url,
      keyPrefix: 'stall:',
      commandTimeoutMs: 300,
    });
    try {
      const lease = (await store.acquireLease(0, 'proc-a', TTL_MS))!;
      server.pause();
      try {
        await rejectsPromptly(store.renewLease(0, lease.epoch, TTL_MS), 1500, 'renewLease while stalled');
      } finally {
        server.resume();
      }
      assert.equal(await eventually(() => store.renewLease(0, lease.epoch, TTL_MS), 'renewLease'), 'ok');
    } finally {
      await store.close();
    }
  });
});
