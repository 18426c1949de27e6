/**
 * GameServer and GameClient over real UDP on loopback: joining, the client told its own entity,
 * prediction ahead of the server, the others interpolated, events, leaving.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import '../../src/node.js';
import { GameClient } from '../../src/game/game-client.js';
import { GameServer } from '../../src/game/game-server.js';
import { arena, arenaRules, emptyLog, play, STILL } from '../support/test-game.js';
import { until } from '../support/until.js';

describe('game API over UDP', () => {
  const log = emptyLog();
  let server: GameServer;
  before(async () => {
    server = await GameServer.start(arenaRules(log, { moveTarget: false }), { port: 0, transports: ['udp'] });
  });
  after(() => server.close());

  it('serves UDP only when asked, on the port its URL names', () => {
    assert.deepEqual(server.stats().transports, ['udp']);
    assert.equal(server.url, `http://127.0.0.1:${server.port}`);
  });

  it('a client joins over UDP and is told which entity is its own', async () => {
    const client = await GameClient.connect(arena, server.url);
    try {
      assert.equal(client.status, 'connected');
      assert.equal(client.statusReason, null);
      await play(
        [client],
        () => STILL,
        'its own entity and a round trip',
        5000,
        () => client.me !== null && client.rtt > 0,
      );
      const player = server.simulation.players[0];
      assert.equal(client.me?.id, player.entity?.id);
      assert.equal(client.me?.type, 'avatar');
      assert.deepEqual({ ...client.me?.state }, { x: 0, y: player.index * 2, score: 0 });
      assert.ok(
        client.entities.every((e) => e.id !== client.me?.id),
        'its own entity is not among the others',
      );
      assert.ok(client.rtt < 1, `rtt ${client.rtt} s`);
    } finally {
      client.close();
    }
    assert.equal(client.status, 'disconnected');
    assert.equal(client.statusReason, 'closed');
    await until('the server to see it leave', 5000, () => server.stats().players === 0);
    assert.equal(log.leaves, log.joins);
  });

  it("predicts: the client's own entity moves before the server's state for it does", async () => {
    const client = await GameClient.connect(arena, server.url);
    try {
      await play(
        [client],
        () => STILL,
        'the prediction to start',
        5000,
        () => client.expert.latency.predicting,
      );
      const id = client.me!.id;
      let ahead = false;
      await play(
        [client],
        () => ({ ...STILL, dx: 1 }),
        'the shown x to lead the received one',
        5000,
        () => {
          const received = (client.expert.mirror.ghost(id)?.value as { x: number } | undefined)?.x ?? 0;
          const shown = client.me?.state.x ?? 0;
          if (shown > 0 && received === 0) ahead = true;
          return ahead && received > 1;
        },
      );
      assert.ok(ahead, 'the predicted x moved while the server had not yet');
      assert.equal(client.stats().mispredictions, 0, 'the server agreed with every predicted state');
    } finally {
      client.close();
    }
  });

  it("interpolates the others: another player's steps are shown between the states received", async () => {
    const walker = await GameClient.connect(arena, server.url);
    const watcher = await GameClient.connect(arena, server.url);
    try {
      const between: number[] = [];
      await play(
        [walker, watcher],
        (c) => (c === walker ? { ...STILL, dx: 1 } : STILL),
        'shown states between two received ones',
        8000,
        () => {
          const other = watcher.entities.find((e) => e.type === 'avatar' && e.id === walker.me?.id);
          // Received states are multiples of 0.25 m (one step); an interpolated one falls between.
          if (other !== undefined && other.state.x % 0.25 !== 0) between.push(other.state.x);
          return between.length >= 10;
        },
      );
      assert.ok(watcher.stats().renderTick > 0);
    } finally {
      walker.close();
      watcher.close();
    }
  });

  it('delivers typed events to their handlers, and stops when told', async () => {
    const client = await GameClient.connect(arena, server.url);
    try {
      const seen: { by: number; hit: boolean }[] = [];
      const stop = client.on('fired', (e) => seen.push(e));
      await play(
        [client],
        () => ({ ...STILL, fire: true, aimX: 50 }),
        'events',
        5000,
        () => seen.length >= 3,
      );
      assert.ok(seen.every((e) => e.by === client.me?.id && e.hit === false));
      stop();
      const count = seen.length;
      await play(
        [client],
        () => ({ ...STILL, fire: true, aimX: 50 }),
        'more events counted',
        5000,
        () => client.stats().events > count + 3,
      );
      // Events already queued when stop() ran may still arrive in that frame; none after it.
      assert.ok(seen.length <= count + 1);
    } finally {
      client.close();
    }
  });

  it("sends the player's messages to the rules' onMessage, in order, typed", async () => {
    const client = await GameClient.connect(arena, server.url);
    try {
      client.send('chat', { text: 'hello' });
      client.send('ready', {});
      client.send('chat', { text: 'again' });
      await play(
        [client],
        () => STILL,
        'the messages',
        5000,
        () => log.chat.length >= 2,
      );
      const index = log.chat[0].split(':')[0];
      assert.deepEqual(log.chat, [`${index}: hello`, `${index}: again`], 'both from one player, in order');
      assert.equal(server.stats().messages, 3);
      assert.throws(
        () => client.send('nope' as 'chat', { text: '' }),
        /GameClient.send: "nope" is not one of/,
      );
      assert.throws(() => client.send('chat', { text: 'x'.repeat(65) }), /64/);
    } finally {
      client.close();
    }
    assert.throws(
      () => client.send('chat', { text: 'late' }),
      /GameClient.send\('chat'\): not connected \(disconnected\)/,
    );
  });

  it("a player's leaving removes its entity from the others' view", async () => {
    const a = await GameClient.connect(arena, server.url);
    const b = await GameClient.connect(arena, server.url);
    try {
      await play(
        [a, b],
        () => STILL,
        'each to see the other',
        5000,
        () => a.entities.some((e) => e.id === b.me?.id),
      );
      const bId = b.me!.id;
      b.close();
      await play(
        [a],
        () => STILL,
        'the leaver to vanish',
        5000,
        () => a.entities.every((e) => e.id !== bId),
      );
      assert.equal(server.stats().players, 1);
    } finally {
      a.close();
      b.close();
    }
  });

  it('another player that walks and stops is shown where the server has it, not past it', async () => {
    const [walker, watcher] = [
      await GameClient.connect(arena, server.url),
      await GameClient.connect(arena, server.url),
    ];
    try {
      await play(
        [walker, watcher],
        () => STILL,
        'both seeing each other',
        5000,
        () => watcher.entities.some((e) => e.id === walker.me?.id),
      );
      const x = walker.me!.state.x;
      await play(
        [walker, watcher],
        () => ({ ...STILL, dx: 1 }),
        'the walker 3 m on',
        5000,
        () => (walker.me?.state.x ?? 0) > x + 3,
      );
      const player = server.simulation.players.find((p) => p.entity?.id === walker.me?.id)!;
      // At rest for well over the render delay (before, it was shown extrapolated 2 ticks past).
      const restUntil = performance.now() + 1000;
      await play(
        [walker, watcher],
        () => STILL,
        'a second at rest',
        5000,
        () => performance.now() > restUntil,
      );
      const shown = watcher.entities.find((e) => e.id === walker.me!.id)!;
      assert.equal((shown.state as { x: number }).x, (player.entity!.state as { x: number }).x);
      assert.equal((shown.state as { x: number }).x % 0.25, 0, 'a state the server had');
    } finally {
      walker.close();
      watcher.close();
    }
  });
});
