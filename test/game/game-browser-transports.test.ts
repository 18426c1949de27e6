/**
 * The browser transports of a GameServer, from Node: WebSocket (with `ws`'s class, as Node 20
 * has none) and WebRTC (node-datachannel's RTCPeerConnection on loopback), each on the server's
 * one port set, with the same token endpoint and the same game.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import '../../src/node.js';
import { GameClient } from '../../src/game/game-client.js';
import { GameServer } from '../../src/game/game-server.js';
import type { WebSocketConstructor } from '../../src/transport/websocket-client-transport.js';
import { arena, arenaRules, emptyLog, play, STILL } from '../support/test-game.js';
import { until } from '../support/until.js';
import { LoopbackRTCPeerConnection } from '../support/webrtc-loopback.js';

describe('game API over the browser transports', () => {
  let server: GameServer;
  /**
   * node-datachannel as the offering side sometimes refuses a well-formed answer under CPU load
   * ("Got a remote candidate without ICE transport"; see openRtcClient in webrtc-loopback.ts): a
   * page would fall back to WebSocket, this retries the same transport a few times.
   */
  async function connectRetrying(transport: 'websocket' | 'webrtc'): Promise<GameClient<typeof arena>> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await GameClient.connect(arena, server.url, {
          transport,
          WebSocket: WebSocket as unknown as WebSocketConstructor,
          RTCPeerConnection: LoopbackRTCPeerConnection,
        });
      } catch (error) {
        if (transport !== 'webrtc' || attempt === 8) throw error;
        console.log(`webrtc connect retried: ${String(error)}`);
        await new Promise((resolve) => setTimeout(resolve, 50 + 50 * attempt));
      }
    }
  }
  before(async () => {
    // Every client here is on loopback, and a retried WebRTC attempt's token stays live until it
    // expires: the per-address bounds are lifted so retries are not refused.
    server = await GameServer.start(arenaRules(emptyLog(), { moveTarget: false }), {
      port: 0,
      maxPlayersPerAddress: 16,
      joinRate: { burst: 64, perSecond: 64 },
    });
  });
  after(() => server.close());

  it('serves UDP, WebSocket and WebRTC by default when their packages are installed', () => {
    assert.deepEqual(server.stats().transports, ['udp', 'websocket', 'webrtc']);
  });

  for (const transport of ['websocket', 'webrtc'] as const) {
    it(`a client plays over ${transport}: joins, is told its entity, moves`, async () => {
      const client = await connectRetrying(transport);
      try {
        assert.equal(
          client.expert.transport.constructor.name,
          transport === 'webrtc' ? 'WebRtcClientTransport' : 'WebSocketClientTransport',
        );
        await play(
          [client],
          () => ({ ...STILL, dx: 1 }),
          'the avatar to move',
          8000,
          () => (client.me?.state.x ?? 0) > 2,
        );
        // The prediction leads the server by the round trip and the input buffer (which the first
        // input now waits to fill): the server's avatar follows, a few ticks later (inputs go on
        // repeating dx: 1 on the server when they stop), so it is waited for, not sampled.
        const mine = server.simulation.players.find((p) => p.entity?.id === client.me?.id);
        assert.ok(mine !== undefined, 'the server has the player');
        await until('the server to move it too', 8000, () => (mine.state?.x ?? 0) > 1);
      } finally {
        client.close();
      }
    });
  }
});
