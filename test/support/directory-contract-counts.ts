/**
 * Part of the Directory contract (directory-contract.ts): a room's seat count follows its seats'
 * lapses whatever was counted before. A directory may keep a count between calls (the embedded one
 * skips recounting until a seat can lapse), so a seat given a shorter life after the room was
 * counted — a hold, a restore — must still drop out of the count, and out of findRooms' seats.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { type ContractContext, processRecord, roomListing, seatRequest } from './directory-contract.js';

export function countsContract(ctx: ContractContext): void {
  const joinable = async (roomId: string) =>
    (await ctx.subject.peer.findRooms({ joinable: true })).find((room) => room.roomId === roomId);

  it('counts out a seat held after its room was counted once the hold lapses', async () => {
    const { directory, peer, elapse } = ctx.subject;
    await directory.registerProcess(processRecord('p1'), 60_000);
    await directory.createRoom(roomListing('r1', 'p1', 2));
    await directory.reserveSeat('r1', seatRequest('s1', 60_000));
    assert.equal((await directory.consumeSeat('s1', 'r1')).ok, true);
    await directory.reserveSeat('r1', seatRequest('s2', 60_000));
    assert.equal(await joinable('r1'), undefined, 'full: two seats');
    assert.equal(await peer.holdSeat('s1', ctx.ttlMs), true);
    assert.equal((await directory.getRoom('r1'))?.seats, 2, 'a held seat counts');
    await elapse(ctx.ttlMs * 1.5);
    assert.equal((await joinable('r1'))?.seats, 1, 'the lapsed hold no longer counts');
    assert.equal((await directory.findRooms({ name: 'duel' }))[0]?.seats, 1);
  });

  it('counts out a restored seat once its own expiry passes', async () => {
    const { directory, peer, elapse } = ctx.subject;
    await directory.registerProcess(processRecord('p1'), 60_000);
    await directory.createRoom(roomListing('r1', 'p1', 2));
    await directory.reserveSeat('r1', seatRequest('s1', 60_000));
    assert.equal((await peer.findRooms({ name: 'duel' }))[0]?.seats, 1);
    const reserved = await directory.reserveSeat('r1', seatRequest('s2', 60_000));
    assert.ok(reserved.ok);
    await directory.releaseSeat('s2');
    // On the directory's clock: the reservation's expiry less its TTL is the directory's now.
    const expiresAt = reserved.seat.expiresAt - 60_000 + ctx.ttlMs;
    const shortLived = { ...reserved.seat, state: 'held' as const, expiresAt };
    assert.equal(await peer.restoreSeat(shortLived), true);
    assert.equal(await joinable('r1'), undefined, 'full again with the restored seat');
    await elapse(ctx.ttlMs * 1.5);
    assert.equal((await joinable('r1'))?.seats, 1, 'the restored seat lapsed');
  });
}
