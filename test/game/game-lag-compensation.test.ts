/**
 * game.hitTest over real UDP: a shot aimed where the client showed a moving target hits (the
 * server rewinds the target to that client's render tick); a shot aimed where the target is now on
 * the server, which the client has not seen yet, misses.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import '../../src/node.js';
import { GameClient } from '../../src/game/game-client.js';
import { GameServer } from '../../src/game/game-server.js';
import { type ArenaInput, arena, arenaRules, emptyLog, play, STILL } from '../support/test-game.js';

describe('game.hitTest (lag compensation)', () => {
  const log = emptyLog();
  let server: GameServer;
  let client: GameClient;
  before(async () => {
    server = await GameServer.start(arenaRules(log), { port: 0, transports: ['udp'] });
    client = await GameClient.connect(arena, server.url);
  });
  after(async () => {
    client.close();
    await server.close();
  });

  /** The target as the client shows it (interpolated), or null before it is shown. */
  const shownTarget = () =>
    client.entities.find((e) => e.type === 'target')?.state as { x: number; y: number } | undefined;
  /** The target where the server holds it now. */
  const presentTarget = () => {
    const target = server.simulation.entities.find((e) => e.type === 'target');
    return target?.state as { x: number; y: number };
  };

  it('hits the target where the client showed it', async () => {
    await play(
      [client],
      () => STILL,
      'the target to be interpolated',
      5000,
      () => client.stats().renderTick > 0 && shownTarget() !== undefined,
    );
    const aim = (): ArenaInput => {
      const shown = shownTarget()!;
      // Away from the sweep's wrap, where a shown and a present place can be 80 m apart.
      return shown.x > -35 && shown.x < 35
        ? { ...STILL, fire: true, aimX: shown.x, aimY: shown.y, mode: 0 }
        : STILL;
    };
    await play([client], aim, '60 shots', 10000, () => log.shots[0] >= 60);
    assert.ok(log.hits[0] >= 0.95 * log.shots[0], `${log.hits[0]} hits of ${log.shots[0]} shots`);
  });

  it('misses where the target is now on the server (a place the client has not shown yet)', async () => {
    const aim = (): ArenaInput => {
      const now = presentTarget();
      return now.x > -35 && now.x < 35 ? { ...STILL, fire: true, aimX: now.x, aimY: now.y, mode: 1 } : STILL;
    };
    await play([client], aim, '60 shots', 10000, () => log.shots[1] >= 60);
    // The target moves 0.25 m a tick and is shown a few ticks late: the present is over 0.55 m ahead.
    assert.ok(log.hits[1] <= 0.05 * log.shots[1], `${log.hits[1]} hits of ${log.shots[1]} shots`);
  });
});
