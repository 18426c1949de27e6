/**
 * What only the embedded zone store does, beyond the contract: it checks its options, refuses a
 * clock that goes backwards (which would bring a lapsed lease back to life), and refuses calls
 * once closed.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EmbeddedZoneStore } from '../../src/zones/embedded-zone-store.js';

describe('EmbeddedZoneStore', () => {
  it('needs a clock and sane limits', () => {
    assert.throws(() => new EmbeddedZoneStore(undefined as never), TypeError);
    assert.throws(() => new EmbeddedZoneStore({} as never), TypeError);
    assert.throws(
      () => new EmbeddedZoneStore({ nowMs: () => 0, limits: { maxInboxEntries: 0 } }),
      RangeError,
    );
    assert.throws(() => new EmbeddedZoneStore({ nowMs: () => 0, limits: { maxBatch: 1.5 } }), RangeError);
  });

  it('refuses a clock that goes backwards or is not a number, leaving the lease as it was', async () => {
    let now = 1000;
    const store = new EmbeddedZoneStore({ nowMs: () => now });
    const lease = (await store.acquireLease(0, 'proc-a', 100))!;
    now = 1200;
    assert.equal(await store.lease(0), null, 'lapsed');
    now = 1050;
    await assert.rejects(store.renewLease(0, lease.epoch, 100), RangeError);
    await assert.rejects(store.lease(0), RangeError);
    now = Number.NaN;
    await assert.rejects(store.acquireLease(0, 'proc-b', 100), RangeError);
    now = 1300;
    assert.equal(await store.lease(0), null);
    assert.equal(await store.renewLease(0, lease.epoch, 100), 'ok', 'lapsed, and renewed by its epoch');
    assert.equal((await store.lease(0))?.expiresAtMs, 1400);
  });

  it('refuses every call once closed', async () => {
    const store = new EmbeddedZoneStore({ nowMs: () => 0 });
    await store.close();
    await assert.rejects(store.acquireLease(0, 'proc-a', 100), /closed/);
    await assert.rejects(store.owners([1]), /closed/);
    await assert.rejects(store.readSnapshot(0), /closed/);
  });
});
