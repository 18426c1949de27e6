/**
 * A room server listing itself again after the directory lost it (a lapse, Redis restarted empty)
 * awaits its writes one by one: a client that leaves or a room disposed meanwhile is not brought
 * back by a write made from what was hosted before.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { faultyRoomScene } from '../support/directory-faults.js';

describe('listing a process again', () => {
  it('does not restore the seats of clients who left while the seats were being written', async () => {
    const s = await faultyRoomScene();
    const room = await s.create({ tag: 'a' });
    const ann = await s.join(room.roomId, 'ann');
    const bob = await s.join(room.roomId, 'bob');
    await s.run(300);
    assert.equal(room.seats.size, 2);
    await s.directory.removeProcess(s.server.processId); // the directory lost it all
    const release = s.faults.hold('restoreSeat');
    const beat = s.server.heartbeat();
    await s.settle();
    assert.equal(s.faults.calls.get('restoreSeat'), 1, "ann's seat is being written");
    ann.client.messages.disconnect();
    bob.client.messages.disconnect();
    await s.run(50);
    assert.equal(room.seats.size, 0, 'both left meanwhile');
    release();
    await beat;
    assert.equal(s.server.stats.reregistrations, 1);
    assert.equal(await s.directory.getSeat(ann.seatId), null, 'written, then undone');
    assert.equal(await s.directory.getSeat(bob.seatId), null, 'not written');
    assert.equal((await s.directory.getRoom(room.roomId))?.seats, 0);
  });

  it('does not leave taken the seat of a client dropped meanwhile, whose hold was refused', async () => {
    const s = await faultyRoomScene();
    const room = await s.create({ tag: 'a' });
    const ann = await s.join(room.roomId, 'ann');
    await s.run(300);
    await s.directory.removeProcess(s.server.processId);
    const release = s.faults.hold('restoreSeat');
    const beat = s.server.heartbeat();
    await s.settle();
    // Its link is lost: the server times it out and asks to hold its seat, which the directory
    // does not have yet, so the client is gone for good.
    ann.client.live = false;
    await s.run(1500);
    assert.equal(room.seats.size, 0);
    release();
    await beat;
    assert.equal(await s.directory.getSeat(ann.seatId), null, 'not left taken forever');
    assert.equal((await s.directory.getRoom(room.roomId))?.seats, 0);
  });

  it('does not list again a room disposed while it was being written', async () => {
    const s = await faultyRoomScene();
    const room = await s.create({ tag: 'a' });
    await s.directory.removeProcess(s.server.processId);
    const release = s.faults.hold('createRoom');
    const beat = s.server.heartbeat();
    await s.settle();
    await s.run(2100); // empty past its grace: disposed
    assert.equal(s.server.room(room.roomId), undefined);
    release();
    await beat;
    assert.equal(await s.directory.getRoom(room.roomId), null);
  });
});
