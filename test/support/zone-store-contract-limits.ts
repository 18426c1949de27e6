/**
 * The ZoneStore contract, bounds and misuse: a caller or a peer cannot make the store grow without
 * bound (full inboxes and owner tables refuse with a reason and change nothing), and bad arguments
 * are refused at the call with a RangeError or TypeError before anything is written.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HandoffCommit } from '../../src/zones/zone-store.js';
import { commitOf, worldIdOf, type ZoneStoreContext } from './zone-store-contract-shared.js';

export function limitsContract(context: ZoneStoreContext): void {
  const { ttlMs } = context;

  describe('limits', () => {
    it('a full inbox refuses commits, leaving the owner, until a snapshot acks entries', async () => {
      const { store } = await context.remake({ maxInboxEntries: 3 });
      const a = (await store.acquireLease(0, 'proc-a', ttlMs))!.epoch;
      const b = (await store.acquireLease(1, 'proc-b', ttlMs))!.epoch;
      const commit = (n: number) => commitOf({ worldId: worldIdOf(0, n), from: 0, fromEpoch: a, to: 1 });
      for (let n = 1; n <= 3; n++) assert.equal(await store.commitHandoff(commit(n)), 'ok');
      assert.equal(await store.commitHandoff(commit(4)), 'inbox-full');
      assert.deepEqual(await store.owners([worldIdOf(0, 4)]), [{ zone: 0, hseq: 0 }]);
      const read = await store.readInbox(1, b, { from: 'new' }, 10);
      assert.ok(read.status === 'ok' && read.entries.length === 3);
      assert.equal(
        await store.commitHandoff(commit(4)),
        'inbox-full',
        'read but unacked entries still count',
      );
      assert.equal(await store.writeSnapshot(1, b, 10, read.entries[0].cursor, Uint8Array.of()), 'ok');
      assert.equal(await store.commitHandoff(commit(4)), 'ok');
      assert.equal(await store.commitHandoff(commit(5)), 'inbox-full');
    });

    it('a full owner table refuses new entities but not those it already records', async () => {
      const { store } = await context.remake({ maxOwnerRecords: 2 });
      const a = (await store.acquireLease(0, 'proc-a', ttlMs))!.epoch;
      const b = (await store.acquireLease(1, 'proc-b', ttlMs))!.epoch;
      const first = worldIdOf(0, 1);
      assert.equal(
        await store.commitHandoff(commitOf({ worldId: first, from: 0, fromEpoch: a, to: 1 })),
        'ok',
      );
      assert.equal(
        await store.commitHandoff(commitOf({ worldId: worldIdOf(0, 2), from: 0, fromEpoch: a, to: 1 })),
        'ok',
      );
      const third = commitOf({ worldId: worldIdOf(0, 3), from: 0, fromEpoch: a, to: 1 });
      assert.equal(await store.commitHandoff(third), 'owners-full');
      assert.deepEqual(await store.owners([third.worldId]), [{ zone: 0, hseq: 0 }]);
      assert.equal(
        await store.commitHandoff(commitOf({ worldId: first, from: 1, fromEpoch: b, to: 0, hseq: 2 })),
        'ok',
      );
    });

    it('oversized payloads, snapshots and batches are refused at the call', async () => {
      const { store } = await context.remake({ maxPayloadBytes: 8, maxSnapshotBytes: 16, maxBatch: 4 });
      const a = (await store.acquireLease(0, 'proc-a', ttlMs))!.epoch;
      await assert.rejects(
        store.commitHandoff(commitOf({ from: 0, fromEpoch: a, to: 1, payload: new Uint8Array(9) })),
        RangeError,
      );
      assert.equal(
        await store.commitHandoff(commitOf({ from: 0, fromEpoch: a, to: 1, payload: new Uint8Array(8) })),
        'ok',
      );
      await assert.rejects(store.writeSnapshot(0, a, 1, 0, new Uint8Array(17)), RangeError);
      await assert.rejects(store.readInbox(0, a, { from: 'new' }, 5), RangeError);
      await assert.rejects(store.owners([1, 2, 3, 4, 5]), RangeError);
      assert.equal((await store.owners([1, 2, 3, 4])).length, 4);
    });
  });

  describe('misuse', () => {
    it('bad zones, epochs, ids and lease requests throw before anything changes', async () => {
      const { store } = context.subject;
      for (const zone of [-1, 256, 1.5, Number.NaN]) {
        await assert.rejects(store.acquireLease(zone, 'proc-a', ttlMs), RangeError, `zone ${zone}`);
      }
      await assert.rejects(store.acquireLease(0, '', ttlMs), TypeError);
      await assert.rejects(store.acquireLease(0, 'p'.repeat(10_000), ttlMs), RangeError);
      for (const ttl of [0, -5, 0.5, 3_600_000]) {
        await assert.rejects(store.acquireLease(0, 'proc-a', ttl), RangeError, `ttl ${ttl}`);
      }
      assert.equal(await store.lease(0), null, 'no refused acquire took the lease');
      const a = (await store.acquireLease(0, 'proc-a', ttlMs))!.epoch;
      assert.equal(a, 1, 'no refused acquire used an epoch');
      await assert.rejects(store.renewLease(0, 0, ttlMs), RangeError);
      const bad: Partial<HandoffCommit>[] = [
        { to: 0 },
        { to: 300 },
        { hseq: 0 },
        { worldId: 2 ** 32 },
        { worldId: -1 },
        { tick: -1 },
        { fromEpoch: 0 },
        { payload: [1, 2] as unknown as Uint8Array },
      ];
      for (const fields of bad) {
        await assert.rejects(
          store.commitHandoff({ ...commitOf({ from: 0, fromEpoch: a, to: 1 }), ...fields }),
          {
            name: /RangeError|TypeError/,
          },
        );
      }
      assert.deepEqual(await store.owners([worldIdOf(0, 1)]), [{ zone: 0, hseq: 0 }]);
      await assert.rejects(store.readInbox(0, a, { from: 'pending', after: -1 }, 1), RangeError);
      await assert.rejects(store.readInbox(0, a, { from: 'old' } as never, 1), TypeError);
      await assert.rejects(store.writeSnapshot(0, a, -1, 0, Uint8Array.of()), RangeError);
      await assert.rejects(store.writeSnapshot(0, a, 1, 0, 'bytes' as unknown as Uint8Array), TypeError);
      assert.equal(await store.readSnapshot(0), null);
    });
  });
}
