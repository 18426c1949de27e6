/**
 * What every ZoneStore must do, run against each implementation (embedded now, Redis next):
 * leases and epochs here; handoff commits and inboxes in -handoff.ts; limits and misuse in
 * -limits.ts; a seeded random run against a model in -random.ts. A subject gives the store, a peer
 * on the same data (another process), and its clock.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { handoffContract } from './zone-store-contract-handoff.js';
import { limitsContract } from './zone-store-contract-limits.js';
import { randomContract } from './zone-store-contract-random.js';
import type {
  MakeZoneStoreSubject,
  ZoneStoreContext,
  ZoneStoreContractOptions,
  ZoneStoreSubject,
} from './zone-store-contract-shared.js';

export function zoneStoreContract(
  name: string,
  make: MakeZoneStoreSubject,
  options: ZoneStoreContractOptions,
): void {
  let subject: ZoneStoreSubject | undefined;
  const context: ZoneStoreContext = {
    get subject() {
      assert.ok(subject, 'no subject');
      return subject;
    },
    ttlMs: options.ttlMs,
    async remake(limits) {
      await subject?.close();
      subject = await make(limits);
      return subject;
    },
  };
  describe(`ZoneStore contract: ${name}`, { skip: options.skip }, () => {
    beforeEach(async () => {
      subject = await make({});
    });
    afterEach(async () => {
      await subject?.close();
      subject = undefined;
    });
    leaseContract(context);
    handoffContract(context);
    limitsContract(context);
    randomContract(context);
  });
}

function leaseContract(context: ZoneStoreContext): void {
  const { ttlMs } = context;

  describe('leases', () => {
    it('one live lease per zone: a second acquire, from any process, gets null', async () => {
      const { store, peer } = context.subject;
      const lease = await store.acquireLease(3, 'proc-a', ttlMs);
      assert.ok(lease);
      assert.equal(lease.zone, 3);
      assert.equal(lease.processId, 'proc-a');
      assert.equal(lease.epoch, 1);
      assert.equal(await peer.acquireLease(3, 'proc-b', ttlMs), null);
      assert.equal(await store.acquireLease(3, 'proc-a', ttlMs), null);
      assert.deepEqual(await peer.lease(3), lease);
      // Zones are independent.
      assert.equal((await peer.acquireLease(4, 'proc-b', ttlMs))?.epoch, 1);
    });

    it('a renewed lease outlives its first TTL; an unrenewed one lapses', async () => {
      const { store, peer, elapse } = context.subject;
      const lease = (await store.acquireLease(0, 'proc-a', ttlMs))!;
      await elapse(ttlMs * 0.6);
      assert.equal(await store.renewLease(0, lease.epoch, ttlMs), 'ok');
      await elapse(ttlMs * 0.6);
      assert.equal((await peer.lease(0))?.epoch, lease.epoch, 'renewed: still live past the first TTL');
      await elapse(ttlMs * 0.6);
      assert.equal(await peer.lease(0), null, 'lapsed');
    });

    it('a lapsed lease is renewed by its epoch while no acquire followed (a store outage)', async () => {
      const { store, peer, elapse } = context.subject;
      const lease = (await store.acquireLease(7, 'proc-a', ttlMs))!;
      await elapse(ttlMs * 3);
      assert.equal(await peer.lease(7), null, 'lapsed');
      // Lapsed, its writes are refused until it renews.
      assert.equal(await store.writeSnapshot(7, lease.epoch, 5, 0, Uint8Array.of(1)), 'stale');
      assert.equal(await store.renewLease(7, lease.epoch, ttlMs), 'ok');
      assert.equal((await peer.lease(7))?.epoch, lease.epoch, 'live again, same epoch');
      assert.equal(await peer.acquireLease(7, 'proc-b', ttlMs), null, 'and held against others');
      assert.equal(await store.writeSnapshot(7, lease.epoch, 5, 0, Uint8Array.of(1)), 'ok');
      assert.equal(await store.renewLease(7, lease.epoch + 1, ttlMs), 'stale', 'an epoch never acquired');
    });

    it('a lapsed lease another process acquired is fenced for good', async () => {
      const { store, peer, elapse } = context.subject;
      const lease = (await store.acquireLease(8, 'proc-a', ttlMs))!;
      await elapse(ttlMs * 1.2);
      const taken = (await peer.acquireLease(8, 'proc-b', ttlMs))!;
      assert.equal(taken.epoch, lease.epoch + 1);
      await elapse(ttlMs * 1.2);
      assert.equal(await store.renewLease(8, lease.epoch, ttlMs), 'stale', 'even once the new one lapsed');
      assert.equal(await peer.renewLease(8, taken.epoch, ttlMs), 'ok');
      assert.equal((await store.lease(8))?.processId, 'proc-b');
    });

    it('a released lease cannot be renewed', async () => {
      const { store, peer } = context.subject;
      const lease = (await store.acquireLease(9, 'proc-a', ttlMs))!;
      assert.equal(await store.releaseLease(9, lease.epoch), 'ok');
      assert.equal(await store.renewLease(9, lease.epoch, ttlMs), 'stale');
      assert.equal(await peer.lease(9), null);
    });

    it('every acquire bumps the epoch, also after a lapse or a release', async () => {
      const { store, peer, elapse } = context.subject;
      const first = (await store.acquireLease(1, 'proc-a', ttlMs))!;
      await elapse(ttlMs * 1.2);
      const second = (await peer.acquireLease(1, 'proc-b', ttlMs))!;
      assert.equal(second.epoch, first.epoch + 1);
      assert.equal(await store.releaseLease(1, first.epoch), 'stale', 'only the live epoch releases');
      assert.equal(await peer.releaseLease(1, second.epoch), 'ok');
      assert.equal(await store.lease(1), null);
      const third = (await store.acquireLease(1, 'proc-a', ttlMs))!;
      assert.equal(third.epoch, second.epoch + 1);
    });

    it('a forced acquire takes a live lease and fences the old epoch', async () => {
      const { store, peer } = context.subject;
      const old = (await store.acquireLease(2, 'proc-a', ttlMs))!;
      const taken = await peer.acquireLease(2, 'proc-b', ttlMs, true);
      assert.equal(taken?.epoch, old.epoch + 1);
      assert.equal(taken?.processId, 'proc-b');
      assert.equal(await store.renewLease(2, old.epoch, ttlMs), 'stale');
      assert.equal(await store.writeSnapshot(2, old.epoch, 10, 0, Uint8Array.of(9)), 'stale');
      assert.deepEqual(await store.readInbox(2, old.epoch, { from: 'new' }, 10), { status: 'stale' });
      assert.equal(await peer.renewLease(2, taken!.epoch, ttlMs), 'ok');
    });

    it('a snapshot from a lapsed lease is refused and the last good one stays', async () => {
      const { store, peer, elapse } = context.subject;
      const lease = (await store.acquireLease(5, 'proc-a', ttlMs))!;
      assert.equal(await store.writeSnapshot(5, lease.epoch, 30, 0, Uint8Array.of(1, 1)), 'ok');
      await elapse(ttlMs * 1.2);
      assert.equal(await store.writeSnapshot(5, lease.epoch, 60, 0, Uint8Array.of(2, 2)), 'stale');
      const snapshot = await peer.readSnapshot(5);
      assert.deepEqual(snapshot, {
        zone: 5,
        epoch: lease.epoch,
        tick: 30,
        inboxCursor: 0,
        bytes: Uint8Array.of(1, 1),
      });
      assert.equal(await peer.readSnapshot(6), null);
    });
  });
}
