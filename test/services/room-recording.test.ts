/** A room records its world: its ReplicationServer's recording is captured after each tick the room stamps. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReplayFile } from '../../src/replication/index.js';
import { roomScene, types } from '../support/room-scene.js';

describe('RoomServer: recording a room', () => {
  it("captures each tick the room stamps, and the saved file holds the room's world", async () => {
    const s = await roomScene();
    const room = await s.create({ tag: 'a' });
    const replication = room.replications[0];
    const recording = replication.record({ tickRate: 20, keyframeSeconds: 1 });
    assert.equal(replication.recording, recording);
    await s.run(1000); // 20 ticks at 20 Hz
    assert.ok(
      recording.lastTick >= room.world.serverTick - 1 && recording.lastTick > 10,
      `${recording.lastTick}`,
    );
    const file = ReplayFile.open(recording.save(), { types, capacity: room.world.capacity });
    assert.equal(file.lastTick, recording.lastTick);
    recording.stop();
    assert.equal(replication.recording, null);
    await s.run(200);
    assert.deepEqual(s.errors, []);
  });
});
