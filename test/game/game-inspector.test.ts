/**
 * GameServer.inspector() over real UDP on loopback: a watched player's packets come with their
 * entities, bits and the link's RTT; whoSees names the players holding an entity; the last stop
 * leaves no watcher.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import '../../src/node.js';
import { GameClient } from '../../src/game/game-client.js';
import { GameServer } from '../../src/game/game-server.js';
import type { GamePacketTrace } from '../../src/node.js';
import { arena, arenaRules, emptyLog, play, STILL } from '../support/test-game.js';

const MOVE = { ...STILL, dx: 1 };

describe('the game-level network inspector', () => {
  let server: GameServer;
  before(async () => {
    server = await GameServer.start(arenaRules(emptyLog(), { moveTarget: false }), {
      port: 0,
      transports: ['udp'],
    });
  });
  after(() => server.close());

  it('watches a player: packets with entities, bits and RTT; whoSees; stop detaches', async () => {
    const inspector = server.inspector();
    assert.equal(inspector, server.inspector(), 'one inspector per server');
    assert.equal(inspector.watcherCount, 0, 'off by default');
    const clients = [
      await GameClient.connect(arena, server.url),
      await GameClient.connect(arena, server.url),
    ];
    try {
      await play(
        clients,
        () => STILL,
        'both see themselves',
        5000,
        () => clients.every((c) => c.me !== null && c.rtt > 0),
      );
      const player = server.simulation.players[0];
      const packets: GamePacketTrace[] = [];
      const stop = inspector.watch(player.index, (p) => packets.push(p), { fields: true });
      assert.equal(inspector.watcherCount, 1);
      await play(
        clients,
        () => MOVE, // moving: an idle world sends no section, so no trace
        'a few traced packets',
        5000,
        () => packets.length >= 5,
      );
      stop();
      assert.equal(inspector.watcherCount, 0);
      const last = packets[packets.length - 1];
      assert.ok(last.rttMs > 0 && last.rttMs < 1000, `${last.rttMs} ms`);
      assert.ok(last.packetLoss >= 0 && last.packetLoss <= 1);
      assert.ok(last.bits.total > 0);
      const ids = new Set(packets.flatMap((p) => p.entities.map((e) => e.id)));
      for (const p of server.simulation.players) assert.ok(ids.has(p.entity!.id), 'every avatar considered');
      const holders = inspector
        .whoSees(player.entity!.id)
        .map((h) => h.client)
        .sort();
      assert.deepEqual(holders, server.simulation.players.map((p) => p.index).sort());
      const count = packets.length;
      const until = Date.now() + 300;
      await play(
        clients,
        () => MOVE,
        'more packets',
        5000,
        () => Date.now() > until,
      );
      assert.equal(packets.length, count, 'no packets after the stop');
    } finally {
      for (const c of clients) c.close();
    }
  });
});
