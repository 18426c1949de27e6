/**
 * GatewayLeaseKeeper against a hand-driven lease store: it claims, renews every third of its
 * time to live, keeps serving through renewals that reject (reporting once per outage), stops
 * serving when a renewal is answered 'stale', and gives its index back at close.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type GatewayLease,
  GatewayLeaseKeeper,
  type GatewayLeases,
} from '../../src/zones/gateway-lease-keeper.js';
import type { LeaseResult } from '../../src/zones/zone-store.js';
import { until } from '../support/until.js';

class HandLeases implements GatewayLeases {
  free = true;
  answer: LeaseResult | 'reject' = 'ok';
  renewals = 0;
  released: GatewayLease[] = [];
  async claimGateway(_processId: string, _ttlMs: number): Promise<GatewayLease | null> {
    return this.free ? { gateway: 3, epoch: 7 } : null;
  }
  async renewGateway(_lease: GatewayLease, _ttlMs: number): Promise<LeaseResult> {
    this.renewals++;
    if (this.answer === 'reject') throw new Error('the store is down');
    return this.answer;
  }
  async releaseGateway(lease: GatewayLease): Promise<LeaseResult> {
    this.released.push(lease);
    return 'ok';
  }
}

function keeperOn(leases: HandLeases, events: string[]) {
  return GatewayLeaseKeeper.claim({
    leases,
    processId: 'test',
    ttlMs: 30,
    onLost: () => events.push('lost'),
    onError: (error) => events.push(`error: ${(error as Error).message}`),
  });
}

describe('GatewayLeaseKeeper', () => {
  it('renews, rides out an outage reporting it once, and gives the index back at close', async () => {
    const leases = new HandLeases();
    const events: string[] = [];
    const keeper = await keeperOn(leases, events);
    assert.equal(keeper.gateway, 3);
    await until('renewals', 2000, () => leases.renewals >= 3);
    leases.answer = 'reject';
    const before = leases.renewals;
    await until('renewals tried through the outage', 2000, () => leases.renewals >= before + 4);
    assert.deepEqual(events, ['error: the store is down']);
    leases.answer = 'ok';
    await until('a renewal that succeeds', 2000, () => leases.renewals >= before + 6);
    leases.answer = 'reject';
    await until('a second outage reported', 2000, () => events.length === 2);
    await keeper.close();
    assert.deepEqual(leases.released, [{ gateway: 3, epoch: 7 }]);
    const after = leases.renewals;
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.equal(leases.renewals, after, 'no renewal after close');
  });

  it('stops at the first stale renewal and tells its owner once', async () => {
    const leases = new HandLeases();
    const events: string[] = [];
    await keeperOn(leases, events);
    leases.answer = 'stale';
    await until('the lease lost', 2000, () => events.length > 0);
    const renewals = leases.renewals;
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.deepEqual(events, ['lost']);
    assert.equal(leases.renewals, renewals, 'no renewal once lost');
  });

  it('rejects when every index is held', async () => {
    const leases = new HandLeases();
    leases.free = false;
    await assert.rejects(keeperOn(leases, []), /every gateway index/);
  });
});
