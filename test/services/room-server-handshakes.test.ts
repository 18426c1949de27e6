import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClientState } from '../../src/connection/client.js';
import { mirroredRooms, roomScene } from '../support/room-scene.js';

describe('RoomServer: handshakes between frames', () => {
  it('a client connects and is admitted with no frame, and its first state comes with the next tick', async () => {
    const s = await roomScene();
    const room = await s.create({ tag: 'a' });
    await s.run(100);
    const { client } = await s.join(room.roomId, 'ann');
    // Three round trips' worth of 1 ms steps: far less than a frame, and no server.update.
    for (let i = 0; i < 3; i++) {
      s.clock.ms += 1;
      client.messages.update(s.clock.ms / 1000);
      s.server.receiveHandshakes(s.clock.ms);
      await s.settle();
    }
    assert.equal(client.messages.client.state, ClientState.Connected);
    assert.equal(room.clients.length, 1, 'admitted before any frame');
    assert.deepEqual(mirroredRooms(client), []);
    await s.run(50); // one tick period of frames
    assert.deepEqual(mirroredRooms(client), ['a', 'a']);
    assert.deepEqual(s.errors, []);
  });

  it('handshakePollMs must be a finite number of ms >= 0', async () => {
    await assert.rejects(roomScene({ handshakePollMs: -1 }), /handshakePollMs/);
    await assert.rejects(roomScene({ handshakePollMs: Number.NaN }), /handshakePollMs/);
  });
});
