/**
 * The ZoneStore contract, handoffs and inboxes: a commit moves the owner exactly once (fenced,
 * idempotent by world id and hseq), lands once in the destination's inbox, is redelivered to a
 * process that takes the zone over until a snapshot acks it, and callers cannot alter what is
 * stored.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InboxEntry, ZoneStore } from '../../src/zones/zone-store.js';
import { commitOf, worldIdOf, type ZoneStoreContext } from './zone-store-contract-shared.js';

async function epochOf(store: ZoneStore, zone: number, ttlMs: number): Promise<number> {
  const lease = await store.acquireLease(zone, `proc-${zone}`, ttlMs);
  assert.ok(lease, `zone ${zone} leased`);
  return lease.epoch;
}

function shapes(entries: readonly InboxEntry[]) {
  return entries.map(({ worldId, from, hseq, tick, payload }) => ({ worldId, from, hseq, tick, payload }));
}

export function handoffContract(context: ZoneStoreContext): void {
  const { ttlMs } = context;

  describe('handoff commits', () => {
    it('an entity nobody handed off is owned by the zone that allocated its world id', async () => {
      const { store } = context.subject;
      assert.deepEqual(await store.owners([worldIdOf(0, 7), worldIdOf(255, 0xffffff), 0]), [
        { zone: 0, hseq: 0 },
        { zone: 255, hseq: 0 },
        { zone: 0, hseq: 0 },
      ]);
    });

    it('a commit moves the owner and lands once in the destination inbox', async () => {
      const { store, peer } = context.subject;
      const a = await epochOf(store, 0, ttlMs);
      const b = await epochOf(peer, 1, ttlMs);
      const commit = commitOf({ from: 0, fromEpoch: a, to: 1, tick: 40, payload: Uint8Array.of(5, 6) });
      assert.equal(await store.commitHandoff(commit), 'ok');
      assert.deepEqual(await peer.owners([commit.worldId]), [{ zone: 1, hseq: 1 }]);
      const read = await peer.readInbox(1, b, { from: 'new' }, 10);
      assert.equal(read.status, 'ok');
      assert.deepEqual(shapes(read.status === 'ok' ? read.entries : []), [
        { worldId: commit.worldId, from: 0, hseq: 1, tick: 40, payload: Uint8Array.of(5, 6) },
      ]);
      assert.ok(read.status === 'ok' && read.entries[0].cursor > 0);
      assert.deepEqual(await peer.readInbox(1, b, { from: 'new' }, 10), { status: 'ok', entries: [] });
    });

    it('the same commit again is a duplicate and changes nothing', async () => {
      const { store, peer } = context.subject;
      const a = await epochOf(store, 0, ttlMs);
      const b = await epochOf(peer, 1, ttlMs);
      const commit = commitOf({ from: 0, fromEpoch: a, to: 1 });
      assert.equal(await store.commitHandoff(commit), 'ok');
      assert.equal(await store.commitHandoff(commit), 'duplicate');
      assert.equal(await peer.commitHandoff({ ...commit }), 'duplicate');
      assert.deepEqual(await store.owners([commit.worldId]), [{ zone: 1, hseq: 1 }]);
      const read = await peer.readInbox(1, b, { from: 'new' }, 10);
      assert.equal(read.status === 'ok' && read.entries.length, 1);
    });

    it('a zone that does not own the entity, or names the wrong hseq, is refused', async () => {
      const { store, peer } = context.subject;
      const a = await epochOf(store, 0, ttlMs);
      const b = await epochOf(peer, 1, ttlMs);
      const c = await epochOf(peer, 2, ttlMs);
      const worldId = worldIdOf(0, 9);
      assert.equal(
        await peer.commitHandoff(commitOf({ worldId, from: 1, fromEpoch: b, to: 2 })),
        'not-owner',
      );
      assert.equal(
        await store.commitHandoff(commitOf({ worldId, from: 0, fromEpoch: a, to: 1, hseq: 2 })),
        'not-owner',
      );
      assert.equal(await store.commitHandoff(commitOf({ worldId, from: 0, fromEpoch: a, to: 1 })), 'ok');
      // Another commit with the same hseq to somewhere else is a conflict, not a duplicate.
      assert.equal(
        await store.commitHandoff(commitOf({ worldId, from: 0, fromEpoch: a, to: 2 })),
        'not-owner',
      );
      assert.equal(
        await peer.commitHandoff(commitOf({ worldId, from: 1, fromEpoch: b, to: 2, hseq: 2 })),
        'ok',
      );
      // A retry of the first commit after the entity moved on: the source is no longer the owner.
      assert.equal(
        await store.commitHandoff(commitOf({ worldId, from: 0, fromEpoch: a, to: 1 })),
        'not-owner',
      );
      assert.equal(
        await peer.commitHandoff(commitOf({ worldId, from: 2, fromEpoch: c, to: 0, hseq: 3 })),
        'ok',
      );
      assert.deepEqual(await store.owners([worldId]), [{ zone: 0, hseq: 3 }]);
    });

    it('a commit from a fenced or lapsed epoch is stale and changes nothing', async () => {
      const { store, peer, elapse } = context.subject;
      const old = await epochOf(store, 0, ttlMs);
      const taken = (await peer.acquireLease(0, 'proc-new', ttlMs, true))!;
      const worldId = worldIdOf(0, 3);
      assert.equal(await store.commitHandoff(commitOf({ worldId, from: 0, fromEpoch: old, to: 1 })), 'stale');
      assert.deepEqual(await store.owners([worldId]), [{ zone: 0, hseq: 0 }]);
      await elapse(ttlMs * 1.2);
      const lapsed = commitOf({ worldId, from: 0, fromEpoch: taken.epoch, to: 1 });
      assert.equal(await peer.commitHandoff(lapsed), 'stale');
      assert.deepEqual(await store.owners([worldId]), [{ zone: 0, hseq: 0 }]);
      const b = await epochOf(store, 1, ttlMs);
      assert.deepEqual(await store.readInbox(1, b, { from: 'new' }, 10), { status: 'ok', entries: [] });
    });
  });

  describe('inboxes', () => {
    it('pending entries are redelivered to the process that takes the zone over, until acked', async () => {
      const { store, peer } = context.subject;
      const a = await epochOf(store, 0, ttlMs);
      const dead = await epochOf(store, 1, ttlMs);
      for (let n = 1; n <= 3; n++) {
        const commit = commitOf({ worldId: worldIdOf(0, n), from: 0, fromEpoch: a, to: 1, tick: n });
        assert.equal(await store.commitHandoff(commit), 'ok');
      }
      const first = await store.readInbox(1, dead, { from: 'new' }, 2);
      assert.ok(first.status === 'ok');
      assert.equal(first.entries.length, 2, 'max is respected');
      const taken = (await peer.acquireLease(1, 'proc-b2', ttlMs, true))!;
      assert.deepEqual(await store.readInbox(1, dead, { from: 'pending', after: 0 }, 10), {
        status: 'stale',
      });
      const pending = await peer.readInbox(1, taken.epoch, { from: 'pending', after: 0 }, 10);
      assert.deepEqual(pending, first, 'the same entries, cursors and payloads');
      const paged = await peer.readInbox(
        1,
        taken.epoch,
        { from: 'pending', after: first.entries[0].cursor },
        10,
      );
      assert.deepEqual(paged, { status: 'ok', entries: [first.entries[1]] });
      const fresh = await peer.readInbox(1, taken.epoch, { from: 'new' }, 10);
      assert.deepEqual(fresh.status === 'ok' && fresh.entries.map((entry) => entry.tick), [3]);
    });

    it('a snapshot acks the entries read up to its cursor, never one not yet read', async () => {
      const { store, peer } = context.subject;
      const a = await epochOf(store, 0, ttlMs);
      const b = await epochOf(peer, 1, ttlMs);
      for (let n = 1; n <= 3; n++) {
        assert.equal(
          await store.commitHandoff(commitOf({ worldId: worldIdOf(0, n), from: 0, fromEpoch: a, to: 1 })),
          'ok',
        );
      }
      const read = await peer.readInbox(1, b, { from: 'new' }, 2);
      assert.ok(read.status === 'ok' && read.entries.length === 2);
      const [first, second] = read.entries;
      assert.equal(await peer.writeSnapshot(1, b, 50, first.cursor, Uint8Array.of(1)), 'ok');
      const pending = await peer.readInbox(1, b, { from: 'pending', after: 0 }, 10);
      assert.deepEqual(pending, { status: 'ok', entries: [second] });
      // A cursor far past everything acks only what was read.
      assert.equal(await peer.writeSnapshot(1, b, 60, Number.MAX_SAFE_INTEGER, Uint8Array.of(2)), 'ok');
      assert.deepEqual(await peer.readInbox(1, b, { from: 'pending', after: 0 }, 10), {
        status: 'ok',
        entries: [],
      });
      const last = await peer.readInbox(1, b, { from: 'new' }, 10);
      assert.deepEqual(last.status === 'ok' && last.entries.map((entry) => entry.worldId), [worldIdOf(0, 3)]);
      assert.ok(last.status === 'ok' && last.entries[0].cursor > second.cursor, 'cursors increase');
      assert.equal((await store.readSnapshot(1))?.tick, 60);
    });

    it('callers cannot alter what the store keeps', async () => {
      const { store, peer } = context.subject;
      const a = await epochOf(store, 0, ttlMs);
      const b = await epochOf(peer, 1, ttlMs);
      const payload = Uint8Array.of(1, 2, 3);
      assert.equal(await store.commitHandoff(commitOf({ from: 0, fromEpoch: a, to: 1, payload })), 'ok');
      payload[0] = 99;
      const read = await peer.readInbox(1, b, { from: 'new' }, 1);
      assert.ok(read.status === 'ok');
      assert.deepEqual(read.entries[0].payload, Uint8Array.of(1, 2, 3));
      read.entries[0].payload[1] = 99;
      const again = await peer.readInbox(1, b, { from: 'pending', after: 0 }, 1);
      assert.deepEqual(again.status === 'ok' && again.entries[0].payload, Uint8Array.of(1, 2, 3));
      const bytes = Uint8Array.of(7, 7);
      assert.equal(await peer.writeSnapshot(1, b, 5, 0, bytes), 'ok');
      bytes[0] = 0;
      const snapshot = (await store.readSnapshot(1))!;
      snapshot.bytes[1] = 0;
      assert.deepEqual((await store.readSnapshot(1))?.bytes, Uint8Array.of(7, 7));
      const lease = (await store.lease(0))!;
      lease.epoch = 1000;
      assert.equal((await store.lease(0))?.epoch, a);
    });
  });
}
