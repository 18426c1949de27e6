/**
 * Spectators of game rooms, continued (room-spectators.test.ts has the rest): a room's spectator
 * delay and its per-address cap, and the whole path with a Redis directory (skipped without
 * redis-server), over real UDP on loopback.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import '../../src/node.js';
import { GameClient } from '../../src/game/game-client.js';
import { startLocalFleet } from '../../src/services/local-fleet.js';
import { pumpClients as pump } from '../support/pump-clients.js';
import { RedisServer, redisSkip } from '../support/redis.js';
import { field, fieldRules, type Log, startFleet } from '../support/room-spectate-game.js';
import { until } from '../support/until.js';

describe('spectators of rooms with a delay', () => {
  it('spectators.delaySeconds: a room serves its spectators the world late, its players live; maxPerAddress holds', async () => {
    const log: Log = { joins: 0, chat: 0, inputs: 0 };
    const fleet = await startLocalFleet({
      games: { field: { rules: fieldRules(log), spectators: { max: 2, maxPerAddress: 1, delaySeconds: 1 } } },
      port: 0,
      transports: ['udp'],
    });
    const clients: GameClient[] = [];
    try {
      const player = await GameClient.connect(field, fleet.url, { room: 'field' });
      clients.push(player);
      await pump(clients, 'the player in', 5000, () => player.me !== null);
      const tv = await GameClient.connect(field, fleet.url, {
        room: fleet.servers[0].rooms[0].roomId,
        spectate: true,
      });
      clients.push(tv);
      // The player walks east one unit a tick (30 a second); the spectator sees it a second late.
      const walk = setInterval(() => {
        player.update({ dx: 1 });
        tv.update();
      }, 1000 / 60);
      try {
        await until('the player 60 units out', 8000, () => (player.me?.state.x ?? 0) >= 60);
        await until('the spectator to see it walk', 3000, () =>
          tv.entities.some((e) => e.id === player.me?.id && (e.state as { x: number }).x > 5),
        );
        const seen = tv.entities.find((e) => e.id === player.me?.id)?.state as { x: number };
        const lag = (player.me?.state.x ?? 0) - seen.x;
        assert.ok(lag >= 20 && lag <= 60, `about a second (30 units) behind, with jitter: ${lag}`);
      } finally {
        clearInterval(walk);
      }
      // spectators.maxPerAddress = 1: a second spectator from this address is refused, with the reason.
      await assert.rejects(
        GameClient.connect(field, fleet.url, {
          room: fleet.servers[0].rooms[0].roomId,
          spectate: true,
          timeout: 3,
        }),
        /GameClient.connect/,
      );
      assert.equal(fleet.servers[0].stats().refused['spectators from one address (1)'], 1);
      assert.equal(fleet.servers[0].stats().spectators, 1);
    } finally {
      for (const client of clients) client.close();
      await fleet.close();
    }
  });
});

describe('spectators of rooms with a Redis directory', () => {
  it('watches a room by id and a pool’s room as with the embedded directory (skipped without Redis)', {
    skip: redisSkip(),
  }, async () => {
    const redis = await RedisServer.start();
    const log: Log = { joins: 0, chat: 0, inputs: 0 };
    const fleet = await startFleet(log, redis.url);
    const clients: GameClient[] = [];
    try {
      await assert.rejects(
        GameClient.connect(field, fleet.url, { pool: 'solo', spectate: true }),
        /no running room in pool solo/,
      );
      const player = await GameClient.connect(field, fleet.url, { pool: 'solo', name: 'fay' });
      clients.push(player);
      await pump(clients, 'the matched player in', 5000, () => player.me !== null);
      const roomId = fleet.servers[0].rooms[0].roomId;
      const byId = await GameClient.connect(field, fleet.url, { room: roomId, spectate: true });
      const byPool = await GameClient.connect(field, fleet.url, { pool: 'solo', spectate: true });
      clients.push(byId, byPool);
      await pump(clients, 'both spectators to see the player', 5000, () =>
        [byId, byPool].every((tv) => tv.entities.some((e) => e.id === player.me?.id)),
      );
      assert.equal((await fleet.directory.getRoom(roomId))?.seats, 1, 'spectators hold no directory seat');
    } finally {
      for (const client of clients) client.close();
      await fleet.close();
      await redis.stop();
    }
  });
});
