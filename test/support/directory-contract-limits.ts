/**
 * Part of the Directory contract (directory-contract.ts): the per-user seat limits reserveSeat
 * takes. A user's live seats — reserved ones too — count against them, in the room and in all
 * rooms; a seat released, lapsed or removed with its room stops counting; two directories
 * reserving for one user at once never pass the limit.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { SeatLimits } from '../../src/services/directory.js';
import { type ContractContext, processRecord, roomListing, seatRequest } from './directory-contract.js';

const LIMITS: SeatLimits = { perRoom: 1, perUser: 2 };

function asUser(userId: string, seatId: string, ttlMs: number, limits: SeatLimits = LIMITS) {
  return { ...seatRequest(seatId, ttlMs), userId, limits };
}

export function limitsContract(ctx: ContractContext): void {
  it('refuses a user past its seats per room and per user, reserved seats counted', async () => {
    const { directory, peer } = ctx.subject;
    await directory.registerProcess(processRecord('p1'), 60_000);
    for (const r of ['r1', 'r2', 'r3']) await directory.createRoom(roomListing(r, 'p1', 4));
    assert.equal((await directory.reserveSeat('r1', asUser('mallory', 'a1', 60_000))).ok, true);
    assert.deepEqual(await peer.reserveSeat('r1', asUser('mallory', 'a2', 60_000)), {
      ok: false,
      reason: 'user limit in room',
    });
    assert.equal((await peer.reserveSeat('r2', asUser('mallory', 'a3', 60_000))).ok, true);
    assert.deepEqual(await directory.reserveSeat('r3', asUser('mallory', 'a4', 60_000)), {
      ok: false,
      reason: 'user limit',
    });
    // A taken seat counts as a reserved one does; another user is not affected.
    assert.equal((await directory.consumeSeat('a1', 'r1')).ok, true);
    assert.deepEqual(await peer.reserveSeat('r3', asUser('mallory', 'a5', 60_000)), {
      ok: false,
      reason: 'user limit',
    });
    assert.equal((await peer.reserveSeat('r1', asUser('alice', 'b1', 60_000))).ok, true);
    assert.equal((await directory.getRoom('r1'))?.seats, 2);
    // Without limits (a process's own caller) nothing is counted.
    const unlimited = { ...seatRequest('a6', 60_000), userId: 'mallory' };
    assert.equal((await directory.reserveSeat('r1', unlimited)).ok, true);
  });

  it('stops counting a seat once it is released, lapses or its room is removed', async () => {
    const { directory, peer, elapse } = ctx.subject;
    await directory.registerProcess(processRecord('p1'), 600_000);
    for (const r of ['r1', 'r2', 'r3']) await directory.createRoom(roomListing(r, 'p1', 4));
    assert.equal((await directory.reserveSeat('r1', asUser('mallory', 'a1', 600_000))).ok, true);
    await peer.releaseSeat('a1');
    assert.equal((await directory.reserveSeat('r1', asUser('mallory', 'a2', ctx.ttlMs))).ok, true);
    assert.equal((await directory.reserveSeat('r2', asUser('mallory', 'a3', 600_000))).ok, true);
    await elapse(ctx.ttlMs * 1.5);
    assert.equal((await peer.reserveSeat('r1', asUser('mallory', 'a4', 600_000))).ok, true, 'a2 lapsed');
    await directory.removeRoom('r2');
    assert.equal((await peer.reserveSeat('r3', asUser('mallory', 'a5', 600_000))).ok, true, 'r2 went');
    assert.deepEqual(await directory.reserveSeat('r2', asUser('mallory', 'a6', 600_000)), {
      ok: false,
      reason: 'no such room',
    });
  });

  it('never lets one user past its limit when reservations race', async () => {
    const { directory, peer } = ctx.subject;
    await directory.registerProcess(processRecord('p1'), 60_000);
    await directory.createRoom(roomListing('r1', 'p1', 16));
    await directory.createRoom(roomListing('r2', 'p1', 16));
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (i % 2 === 0 ? directory : peer).reserveSeat(i < 6 ? 'r1' : 'r2', asUser('mallory', `s${i}`, 60_000)),
      ),
    );
    assert.equal(results.filter((r) => r.ok).length, 2, 'one seat in each room');
    assert.equal((await directory.getRoom('r1'))?.seats, 1);
    assert.equal((await directory.getRoom('r2'))?.seats, 1);
  });

  it('refuses limits that are not whole numbers of seats at the call', async () => {
    const { directory } = ctx.subject;
    for (const limits of [
      { perRoom: 0, perUser: 2 },
      { perRoom: 1, perUser: Number.NaN },
      { perRoom: 1.5, perUser: 2 },
    ])
      await assert.rejects(directory.reserveSeat('r1', asUser('u', 's1', 1000, limits)), RangeError);
  });
}
