/**
 * A seat is taken only by the client its token was minted for: the connection's netcode client id
 * must be the seat's clientId (the backend mints each seat's token for that id). A token naming
 * the seat for another id is refused as 'wrong client' and the seat stays its own client's.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClientState } from '../../src/connection/client.js';
import { roomScene, TestRoom } from '../support/room-scene.js';

const connected = (c: { messages: { client: { state: number } } }) =>
  c.messages.client.state === ClientState.Connected;

describe('RoomServer: the seat’s client id', () => {
  it('a token for a reserved seat with another client id is refused; the seat’s own client still joins', async () => {
    const s = await roomScene();
    const room = await s.create({ tag: 'a' });
    const seatId = 'seat-ann';
    const reserved = await s.directory.reserveSeat(room.roomId, {
      seatId,
      userId: 'ann',
      clientId: '500',
      ttlMs: 10_000,
    });
    assert.ok(reserved.ok);
    const impostor = s.connect(s.token({ roomId: room.roomId, seatId }, 501n));
    await s.run(300);
    assert.ok(!connected(impostor), 'the wrong client is disconnected');
    assert.deepEqual(s.server.stats.refused, { 'wrong client': 1 });
    assert.deepEqual(TestRoom.log, ['a: create'], 'no join hook ran');
    assert.equal(room.clients.length, 0);
    assert.notEqual(await s.directory.getSeat(seatId), null, 'the seat is given back');

    const own = s.connect(s.token({ roomId: room.roomId, seatId }, 500n));
    await s.run(300);
    assert.ok(connected(own));
    assert.deepEqual(TestRoom.log, ['a: create', 'a: join ann']);
    assert.equal(room.clients.length, 1);
    assert.equal(room.clients[0].clientId, 500n);
    assert.equal((await s.directory.getSeat(seatId))?.state, 'taken');
    assert.equal(s.server.stats.joins, 1);
    assert.deepEqual(s.server.stats.refused, { 'wrong client': 1 });
    assert.deepEqual(s.errors, []);
  });

  it('a dropped client reconnects with its own client id; another id is refused and the window kept', async () => {
    const s = await roomScene();
    const room = await s.create({ tag: 'a' });
    const { client, seatId, clientId } = await s.join(room.roomId, 'ann');
    await s.run(300);
    client.live = false; // its link dies: timed out after 1 s, the seat held for 3 s
    await s.run(1500);
    assert.deepEqual(TestRoom.log.slice(2), ['a: drop ann']);
    const held = await s.directory.getSeat(seatId);
    assert.equal(held?.state, 'held');

    const impostor = s.connect(s.token({ roomId: room.roomId, seatId }, clientId + 1000n));
    await s.run(300);
    assert.ok(!connected(impostor));
    assert.equal(s.server.stats.refused['wrong client'], 1);
    assert.deepEqual(TestRoom.log.slice(2), ['a: drop ann'], 'no reconnection');
    const after = await s.directory.getSeat(seatId);
    assert.equal(after?.state, 'held');
    assert.equal(after?.expiresAt, held?.expiresAt, 'the rest of its window, not a new one');

    const back = s.connect(s.token({ roomId: room.roomId, seatId }, clientId));
    await s.run(400);
    assert.ok(connected(back));
    assert.deepEqual(TestRoom.log.slice(2), ['a: drop ann', 'a: reconnect ann']);
    assert.equal(s.server.stats.reconnections, 1);
    assert.equal(room.clients[0].clientId, clientId);
    assert.equal((await s.directory.getSeat(seatId))?.state, 'taken');
    assert.deepEqual(s.errors, []);
  });
});
