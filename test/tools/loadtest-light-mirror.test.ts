/**
 * The load tester's light bot mirror reads the arena's state packets as a ClientMirror does: it
 * takes and refuses the same packets and holds the same baselines (so its acks are honest), and
 * keeps a history only for the ghosts it holds, reusing those of ghosts gone.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { arenaFactory } from '../../demo/arena-room.js';
import { LightMirror } from '../../scripts/loadtest-light-mirror.js';
import { MessageConnection } from '../../src/channels/index.js';
import { ClientMirror } from '../../src/replication/index.js';
import { Arena, CAPACITY, types } from '../../tools/live-arena.js';

const PLAYERS = 4;

describe('the light bot mirror', () => {
  it('holds the same ghosts and newest states as a ClientMirror, and a history only per ghost held', () => {
    const arena = new Arena(1, { tickRate: 20, maxClients: PLAYERS });
    const light = new LightMirror(types, CAPACITY);
    const full = new ClientMirror({ types, capacity: CAPACITY });
    const lightEnd = new MessageConnection({
      factory: arenaFactory,
      channels: [light.channel],
      clientIndex: 0,
    });
    const fullEnd = new MessageConnection({
      factory: arenaFactory,
      channels: [full.channel],
      clientIndex: 0,
    });
    const server = new MessageConnection({
      factory: arenaFactory,
      channels: [arena.replication.channel],
      clientIndex: 0,
    });
    for (let i = 0; i < PLAYERS; i++) arena.avatarOf(i, i);
    let now = 0;
    let peak = 0;
    let destroyed = 0;
    for (let t = 0; t < 1200; t++) {
      now += 1 / 20;
      arena.advance(now, () => {});
      const { data, record } = server.writePacket(now);
      assert.ok(
        lightEnd.readPacket(data.slice(), 0, data.length),
        `light, tick ${t}: ${lightEnd.lastRejection}`,
      );
      assert.ok(
        fullEnd.readPacket(data.slice(), 0, data.length),
        `full, tick ${t}: ${fullEnd.lastRejection}`,
      );
      server.acked(record);
      let held = 0;
      for (let id = 0; id < CAPACITY; id++) {
        assert.equal(light.typeOf[id], full.typeOf[id], `ghost ${id} at tick ${t}`);
        const history = light.histories[id];
        assert.equal(history !== null, light.typeOf[id] >= 0, `a history for ghost ${id} only while held`);
        if (history === null) continue;
        held++;
        assert.equal(history.latestTick, full.histories[id]?.latestTick);
        assert.deepEqual(history.latest?.lanes, full.histories[id]?.latest?.lanes, `ghost ${id}'s baseline`);
      }
      if (held < peak) destroyed += peak - held;
      peak = Math.max(peak, held);
    }
    assert.ok(destroyed > 0, 'ghosts came and went (the test reaches the reuse)');
    assert.equal(light.sectionsApplied, full.sectionsApplied);
    assert.ok(light.sectionsApplied > 1100);
    assert.equal(light.newestTick, full.newestTick);
    assert.equal(light.refused, 0);
  });
});
