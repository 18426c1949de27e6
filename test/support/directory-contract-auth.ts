/**
 * Part of the Directory contract (directory-contract.ts): a seat's auth data (what the backend's
 * verifier said of the player) is kept beside its join options through every seat state and a
 * restore, as the directory's own copy; a seat given none has no `auth` key at all.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Seat } from '../../src/services/directory.js';
import { type ContractContext, processRecord, roomListing, seatRequest } from './directory-contract.js';

export function authContract(ctx: ContractContext): void {
  it('keeps a seat’s auth data apart from its options, through taking, holding and restoring', async () => {
    const { directory, peer } = ctx.subject;
    await directory.registerProcess(processRecord('p1'), 60_000);
    await directory.createRoom(roomListing('r1', 'p1'));
    const auth = { name: 'Ada', rank: 12, banned: false, cosmetics: { hat: 'crown' }, tags: ['vip', null] };
    const expected = structuredClone(auth);
    const options = { team: 'red' };
    const reserved = await directory.reserveSeat('r1', { ...seatRequest('s1', 10_000), options, auth });
    assert.ok(reserved.ok);
    assert.deepEqual([reserved.seat.auth, reserved.seat.options], [expected, options]);
    // The caller's object and the answer are the caller's: changing them changes nothing stored.
    auth.name = 'Eve';
    auth.cosmetics.hat = 'horns';
    auth.tags.push('admin');
    (reserved.seat.auth as { rank: number }).rank = 99;
    assert.deepEqual((await peer.getSeat('s1'))?.auth, expected);

    const taken = await peer.consumeSeat('s1', 'r1');
    assert.ok(taken.ok);
    assert.deepEqual([taken.seat.auth, taken.seat.options], [expected, options]);
    assert.equal(await directory.holdSeat('s1', 10_000), true);
    const held = await peer.getSeat('s1');
    assert.deepEqual(held?.auth, expected, 'a held seat (a reconnection) keeps its auth');
    (held?.auth?.cosmetics as { hat: string }).hat = 'cap';
    assert.deepEqual((await directory.getSeat('s1'))?.auth, expected);

    const restoredAuth = { name: 'Bo', entitlements: ['season-pass'] };
    const restored: Seat = { ...taken.seat, seatId: 's2', options: { team: 'green' }, auth: restoredAuth };
    assert.equal(await peer.restoreSeat(restored), true);
    const expectedRestored = structuredClone(restored);
    restoredAuth.entitlements.push('stolen');
    assert.deepEqual(await directory.getSeat('s2'), expectedRestored);
  });

  it('a seat reserved or restored without auth data has no auth key', async () => {
    const { directory, peer } = ctx.subject;
    await directory.registerProcess(processRecord('p1'), 60_000);
    await directory.createRoom(roomListing('r1', 'p1'));
    const plain = await directory.reserveSeat('r1', { ...seatRequest('s1', 10_000), options: { a: 1 } });
    assert.ok(plain.ok);
    assert.equal('auth' in plain.seat, false);
    assert.equal('auth' in ((await peer.getSeat('s1')) ?? { auth: 'missing seat' }), false);
    const taken = await peer.consumeSeat('s1', 'r1');
    assert.ok(taken.ok);
    assert.equal('auth' in taken.seat, false);
    assert.equal(await peer.restoreSeat({ ...taken.seat, seatId: 's2' }), true);
    const restored = await directory.getSeat('s2');
    assert.ok(restored !== null);
    assert.equal('auth' in restored, false);
    assert.deepEqual(restored.options, { a: 1 });
  });
}
