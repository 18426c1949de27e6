/**
 * The same rules as a room type of the services layer: startLocalFleet({ games }) with
 * matchmaking puts two players into one room, and a player whose connection drops gets back into
 * its seat and its entity (GameClient asks the backend for a fresh token). Without a transports
 * option the fleet serves the browser transports that are installed, as GameServer does.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import '../../src/node.js';
import { GameClient } from '../../src/game/game-client.js';
import { type LocalFleet, startLocalFleet } from '../../src/services/local-fleet.js';
import type { DatagramTransport } from '../../src/transport/transport.js';
import type { WebSocketConstructor } from '../../src/transport/websocket-client-transport.js';
import { arena, arenaRules, emptyLog, play, STILL } from '../support/test-game.js';

describe('game rules as a room type', () => {
  const log = emptyLog();
  let fleet: LocalFleet;
  before(async () => {
    fleet = await startLocalFleet({
      games: { arena: arenaRules(log, { moveTarget: false }) },
      port: 0,
      matchmaking: {
        room: 'arena',
        rules: {
          minPlayers: 2,
          maxPlayers: 2,
          fillWaitMs: 10_000,
          skillWindow: { initial: 0, perSecond: 0, max: 0 },
        },
        intervalMs: 50,
      },
    });
  });
  after(() => fleet.close());

  it('refuses games beside rooms, protocolId, factory or channels', async () => {
    await assert.rejects(
      startLocalFleet({ games: { arena: arenaRules(log) }, protocolId: 1n }),
      /games bring their own protocolId/,
    );
  });

  it('matchmaking puts two players in one room, where each sees the other', async () => {
    const [a, b] = await Promise.all([
      GameClient.connect(arena, fleet.url, { pool: 'duel', name: 'ada' }),
      GameClient.connect(arena, fleet.url, { pool: 'duel', name: 'bob' }),
    ]);
    try {
      await play(
        [a, b],
        () => ({ ...STILL, dx: 1 }),
        'each to see the other move',
        8000,
        () => {
          const seen = a.entities.find((e) => e.id === b.me?.id);
          return seen !== undefined && seen.type === 'avatar' && seen.state.x > 1 && (a.me?.state.x ?? 0) > 1;
        },
      );
      assert.equal(a.status, 'connected');
      a.send('chat', { text: 'gg' });
      await play(
        [a, b],
        () => STILL,
        'the message to reach the room',
        5000,
        () => log.chat.some((c) => c.endsWith(': gg')),
      );
      // Each player is who its backend session says: the user id its seat was issued to.
      const ids = log.userIds.slice(-2);
      assert.ok(
        ids.every((id) => typeof id === 'string' && id.startsWith('guest-')),
        `${ids}`,
      );
      assert.notEqual(ids[0], ids[1]);
    } finally {
      a.close();
      b.close();
    }
  });

  it('serves what is installed by default, as GameServer does: a client plays over WebSocket', async () => {
    // No transports option: ws and node-datachannel are installed here, so browsers can join too.
    const [record] = await fleet.directory.listProcesses();
    assert.deepEqual(
      (['udp', 'websocket', 'webrtc'] as const).filter((kind) => record?.addresses[kind] !== undefined),
      ['udp', 'websocket', 'webrtc'],
    );
    const client = await GameClient.connect(arena, fleet.url, {
      room: 'arena',
      transport: 'websocket',
      WebSocket: WebSocket as unknown as WebSocketConstructor,
    });
    try {
      assert.equal(client.expert.transport.constructor.name, 'WebSocketClientTransport');
      await play(
        [client],
        () => ({ ...STILL, dx: 1 }),
        'its avatar to move',
        8000,
        () => (client.me?.state.x ?? 0) > 1,
      );
    } finally {
      client.close();
    }
  });

  it('a player whose connection drops is back in its seat, with its entity, on a fresh token', async () => {
    const client = await GameClient.connect(arena, fleet.url, { room: 'arena' });
    try {
      await play(
        [client],
        () => ({ ...STILL, dx: 1 }),
        'its avatar to move',
        5000,
        () => (client.me?.state.x ?? 0) > 1,
      );
      const id = client.me!.id;
      // The link goes silent both ways until the client has given up on it.
      const transport = client.expert.transport as {
        -readonly [K in keyof DatagramTransport]: DatagramTransport[K];
      };
      const { send, receive } = transport;
      transport.send = () => {};
      transport.receive = () => 0;
      await play(
        [client],
        () => STILL,
        'the connection to time out',
        15_000,
        () => client.statusReason === 'connection timed out',
      );
      transport.send = send;
      transport.receive = receive;
      await play(
        [client],
        () => ({ ...STILL, dx: 1 }),
        'it to be back, moving',
        15_000,
        () => client.status === 'connected' && client.me !== null && client.me.state.x > 3,
      );
      assert.equal(client.me?.id, id, 'the same entity');
      assert.equal(client.stats().reconnections, 1);
    } finally {
      client.close();
    }
  });
});
