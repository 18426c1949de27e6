/**
 * A room server whose directory calls fail (a Redis command timeout, an IPC timeout — possibly after
 * the call ran) does not leak seats: a seat it may have taken for a refused client is handed back,
 * and a release that failed is tried again at the next heartbeat.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClientState } from '../../src/connection/client.js';
import { faultyRoomScene } from '../support/directory-faults.js';

describe('room seating when the directory fails', () => {
  it('hands back a seat whose consumeSeat failed after taking it: held, then it lapses', async () => {
    const s = await faultyRoomScene();
    const room = await s.create({ tag: 'a' });
    s.faults.fail('consumeSeat', 1, true);
    const { client, seatId } = await s.join(room.roomId, 'ann');
    await s.run(300);
    assert.equal(client.messages.client.state, ClientState.Disconnected);
    assert.equal(s.server.stats.refused['directory error'], 1);
    const seat = await s.directory.getSeat(seatId);
    assert.equal(seat?.state, 'held', 'not left taken forever');
    assert.ok(Number.isFinite(seat.expiresAt));
    s.clock.ms += 15_000; // the hand-back (a token's life) lapses
    await s.run(2500); // and the room, empty past its grace with no seat left, goes
    assert.equal(await s.directory.getSeat(seatId), null);
    assert.equal(await s.directory.getRoom(room.roomId), null);
    assert.equal(s.server.room(room.roomId), undefined, 'the room was disposed');
  });

  it('releases the seat when handing it back fails too, retrying at the next heartbeat', async () => {
    const s = await faultyRoomScene();
    const room = await s.create({ tag: 'a' });
    s.faults.fail('consumeSeat', 1, true);
    s.faults.fail('holdSeat', 1);
    s.faults.fail('releaseSeat', 1);
    const { seatId } = await s.join(room.roomId, 'ann');
    await s.run(300);
    assert.equal((await s.directory.getSeat(seatId))?.state, 'taken', 'the release failed');
    await s.server.heartbeat();
    await s.settle();
    assert.equal(await s.directory.getSeat(seatId), null, 'released on the heartbeat');
    assert.equal((await s.directory.getRoom(room.roomId))?.seats, 0);
  });

  it('retries a release that failed when a client left, until it lands', async () => {
    const s = await faultyRoomScene();
    const room = await s.create({ tag: 'a' });
    const { client, seatId } = await s.join(room.roomId, 'ann');
    await s.run(300);
    assert.equal(room.seats.size, 1);
    s.faults.fail('releaseSeat', 2);
    client.messages.disconnect();
    await s.run(50);
    assert.equal(room.seats.size, 0);
    assert.equal((await s.directory.getSeat(seatId))?.state, 'taken');
    await s.server.heartbeat(); // fails again
    await s.settle();
    assert.equal((await s.directory.getSeat(seatId))?.state, 'taken');
    await s.server.heartbeat();
    await s.settle();
    assert.equal(await s.directory.getSeat(seatId), null);
    assert.equal(s.faults.calls.get('releaseSeat'), 3);
  });
});
