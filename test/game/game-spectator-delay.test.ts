/**
 * The spectator delay over real UDP: spectators are served a world D ticks late (never a tick
 * newer than live − D), players the live one; the held stream stays within its byte bound, the
 * delay shrinking for the changes applied early, while the stamps stay live − D.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import '../../src/node.js';
import { defineGame } from '../../src/game/define-game.js';
import { GameClient } from '../../src/game/game-client.js';
import { GameServer } from '../../src/game/game-server.js';
import { t } from '../../src/schema/schema.js';
import { pumpClients as pump } from '../support/pump-clients.js';

const TICK_RATE = 30;
const clockGame = defineGame({
  name: 'spectate-delay',
  tickRate: TICK_RATE,
  entities: {
    avatar: { state: t.object({ x: t.float(-64, 64, 1 / 16) }) },
    // Stamped with the server's tick every tick: what a client shows says how late it is.
    clock: { state: t.object({ at: t.uint32() }) },
  },
  player: 'avatar',
  input: t.object({ dx: t.int(-1, 1) }),
  step: (a, input) => ({ x: a.x + input.dx / 4 }),
});

const rules = clockGame.rules({
  onJoin(_game, player) {
    player.spawn({ x: 0 });
  },
  onTick(game) {
    const clock = game.entities.find((e) => e.type === 'clock');
    if (clock === undefined) game.spawn('clock', { at: game.tick });
    else clock.state = { at: game.tick };
  },
});

/** The newest clock value the client received (-1: none yet). */
function clockOf(client: GameClient): number {
  for (let id = 0; id < clockGame.maxEntities; id++) {
    const ghost = client.expert.mirror.ghost(id);
    if (ghost !== null && ghost.type.name === 'clock') return (ghost.value as { at: number }).at;
  }
  return -1;
}

describe('spectator delay', () => {
  it('spectators see the world delaySeconds late, never a tick newer than live − D; players see it live', async () => {
    const delayTicks = TICK_RATE; // 1 s
    const server = await GameServer.start(rules, {
      port: 0,
      transports: ['udp'],
      spectators: { max: 2, delaySeconds: 1 },
    });
    const player = await GameClient.connect(clockGame, server.url);
    const tv = await GameClient.connect(clockGame, server.url, { spectate: true });
    try {
      let samples = 0;
      let newestLag = Number.NaN;
      await pump([player, tv], 'the spectator to see the clock for a while', 8000, () => {
        const live = server.simulation.world.serverTick;
        const delay = server.spectatorDelay()!;
        // Read between ticks: the delayed world is stamped exactly live − D once live passed D.
        assert.equal(delay.delayedTick, Math.max(0, live - delayTicks));
        const shown = clockOf(tv);
        assert.ok(
          tv.expert.mirror.newestTick <= live - delayTicks || tv.expert.mirror.newestTick <= 0,
          `a section of tick ${tv.expert.mirror.newestTick} at live ${live}`,
        );
        if (shown >= 0) {
          // The clock's value was stamped in the tick before the state's (onTick runs in tick + 1).
          assert.ok(shown <= live - delayTicks + 1, `the spectator shows tick ${shown} at live ${live}`);
          samples++;
          newestLag = live - shown;
        }
        return samples >= 20;
      });
      assert.ok(newestLag >= delayTicks - 1, `lag ${newestLag} ticks`);
      await pump([player, tv], 'the player to see the clock live', 5000, () => {
        const live = server.simulation.world.serverTick;
        return clockOf(player) > live - delayTicks / 2;
      });
      assert.equal(server.simulation.players.length, 1);
    } finally {
      tv.close();
      player.close();
      await server.close();
    }
  });

  it('the held stream stays within delayMaxBytes: the oldest ticks are applied early, stamps stay live − D', async () => {
    const maxBytes = 1024;
    const server = await GameServer.start(rules, {
      port: 0,
      transports: ['udp'],
      spectators: { max: 1, delaySeconds: 2, delayMaxBytes: maxBytes },
    });
    const player = await GameClient.connect(clockGame, server.url);
    try {
      let checked = 0;
      await pump([player], 'ticks applied early', 8000, () => {
        const delay = server.spectatorDelay()!;
        assert.ok(delay.heldBytes <= maxBytes, `${delay.heldBytes} bytes held`);
        assert.equal(delay.maxBytes, maxBytes);
        assert.equal(delay.delayedTick, Math.max(0, server.simulation.world.serverTick - 2 * TICK_RATE));
        checked++;
        return delay.appliedEarly > 10 && checked > 10;
      });
      const delay = server.spectatorDelay()!;
      assert.ok(delay.heldTicks < 2 * TICK_RATE, `${delay.heldTicks} ticks held under a 1 KiB bound`);
    } finally {
      player.close();
      await server.close();
    }
    await assert.rejects(
      GameServer.start(rules, { port: 0, transports: ['udp'], spectators: { max: 1, delaySeconds: -1 } }),
      /delaySeconds/,
    );
  });
});
