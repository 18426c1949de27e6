/**
 * What the game's own code hands back never stops a server: a step result outside its schema
 * (which a remote peer's ordinary inputs can cause), the rules setting, spawning or emitting a
 * value outside its schema, a hitbox that throws. The entity keeps its state, the error is counted
 * and reported naming the call, the type and the field. And a step may return its input state.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import '../../src/node.js';
import { defineGame } from '../../src/game/define-game.js';
import { GameClient } from '../../src/game/game-client.js';
import { GameServer } from '../../src/game/game-server.js';
import { GameSimulation } from '../../src/game/game-simulation.js';
import { ReplicationServer } from '../../src/replication/replication-server.js';
import { t } from '../../src/schema/schema.js';
import { until } from '../support/until.js';

/** A one-metre corridor, a quarter metre a tick: five ticks of walking leave it. */
const corridor = {
  name: 'test-corridor',
  entities: {
    walker: {
      state: t.object({ x: t.float(-1, 1, 1 / 64) }),
      hitbox: (w: { x: number }) => ({ type: 'circle' as const, x: w.x, y: 0, radius: 0.1 }),
    },
  },
  input: t.object({ dx: t.int(-1, 1) }),
  events: { said: t.object({ n: t.uint8() }) },
};
/** The server's step forgets to clamp; the client's (same wire) clamps, so it can keep walking. */
const unclamped = defineGame({ ...corridor, step: (w, input) => ({ x: w.x + input.dx * 0.25 }) });
const clamped = defineGame({
  ...corridor,
  step: (w, input) => ({ x: Math.max(-1, Math.min(1, w.x + input.dx * 0.25)) }),
});

/** Calls update(input) at 60 Hz until `check` holds. */
async function drive(client: GameClient, input: { dx: number }, what: string, check: () => boolean) {
  const timer = setInterval(() => client.update(input), 1000 / 60);
  try {
    await until(what, 8000, check);
  } finally {
    clearInterval(timer);
  }
}

describe('game rules: results outside their schema', () => {
  it('a step result outside its schema keeps the previous state, is counted and reported once a second', async () => {
    const errors: { where: string; message: string }[] = [];
    const rules = unclamped.rules({ onJoin: (_game, player) => void player.spawn({ x: 0 }) });
    const server = await GameServer.start(rules, {
      port: 0,
      transports: ['udp'],
      onError: (error, where) => errors.push({ where, message: (error as Error).message }),
    });
    const client = await GameClient.connect(clamped, server.url);
    try {
      const player = () => server.simulation.players[0];
      // Walking right: the server's step would reach 1.25 at the fifth tick, then every tick after.
      await drive(client, { dx: 1 }, 'two seconds of step errors', () => server.stats().stepErrors >= 60);
      assert.equal(player()?.state?.x, 1, 'the walker stays where its last good step left it');
      const stats = server.stats();
      assert.equal(client.status, 'connected');
      assert.equal(stats.hookErrors, 0, 'a step error is not a hook error');
      assert.ok(errors.length >= 1, 'reported');
      assert.ok(errors.length <= Math.ceil(stats.stepErrors / 30) + 1, `${errors.length} reports`);
      assert.equal(errors[0].where, 'step');
      assert.match(
        errors[0].message,
        /^step: the walker state it returned does not fit its schema: x: 1\.25 is outside \[-1, 1\]/,
      );
      // And it goes on: walking back works.
      await drive(client, { dx: -1 }, 'the walker to walk back', () => (player()?.state?.x ?? 1) < 0);
    } finally {
      client.close();
      await server.close();
    }
  });

  it("the client's own step result outside its schema throws at update, naming step, the type and the field", async () => {
    const server = await GameServer.start(
      clamped.rules({ onJoin: (_game, player) => void player.spawn({ x: 0 }) }),
      { port: 0, transports: ['udp'] },
    );
    const client = await GameClient.connect(unclamped, server.url);
    try {
      const errors: unknown[] = [];
      const timer = setInterval(() => {
        try {
          client.update({ dx: 1 });
        } catch (error) {
          errors.push(error);
        }
      }, 1000 / 60);
      try {
        await until('the prediction to leave the corridor', 8000, () => errors.length > 0);
      } finally {
        clearInterval(timer);
      }
      assert.match(
        String(errors[0]),
        /^RangeError: GameClient\.update: step: the walker state it returned does not fit its schema: x: 1\.25 is outside \[-1, 1\]/,
      );
    } finally {
      client.close();
      await server.close();
    }
  });

  it('a step that returns its input state is predicted (the client copies it)', async () => {
    // Standing still hands back `w` itself: natural, and what the docs allow.
    const lazy = defineGame({
      ...corridor,
      name: 'test-lazy',
      step: (w, input) => (input.dx === 0 ? w : { x: 0.5 }),
    });
    const server = await GameServer.start(
      lazy.rules({ onJoin: (_game, player) => void player.spawn({ x: 0 }) }),
      { port: 0, transports: ['udp'] },
    );
    const client = await GameClient.connect(lazy, server.url);
    try {
      let frames = 0;
      await drive(
        client,
        { dx: 0 },
        'half a second of standing predicted',
        () => client.me !== null && ++frames > 30,
      );
      await drive(client, { dx: 1 }, 'the step to move it', () => client.me?.state.x === 0.5);
      assert.equal(client.status, 'connected');
    } finally {
      client.close();
      await server.close();
    }
  });

  it("the rules' bad spawn, state and emit values throw at the call, naming it and the field; the game goes on", () => {
    const errors: string[] = [];
    const attempts = [
      (game: Parameters<NonNullable<Parameters<typeof clamped.rules>[0]['onTick']>>[0]) =>
        game.spawn('walker', { x: 3 }),
      (game: Parameters<NonNullable<Parameters<typeof clamped.rules>[0]['onTick']>>[0]) => {
        const walker = game.entities[0];
        if (walker !== undefined) walker.state = { x: -2 };
      },
      (game: Parameters<NonNullable<Parameters<typeof clamped.rules>[0]['onTick']>>[0]) =>
        game.emit('said', { n: 300 }),
    ];
    let tick = 0;
    const simulation = new GameSimulation(
      clamped.rules({
        onTick(game) {
          if (tick === 0) game.spawn('walker', { x: 0 });
          attempts[tick++ % attempts.length](game);
        },
      }),
      {
        maxPlayers: 2,
        replicate: (options) => new ReplicationServer({ ...options, maxClients: 2 }),
        onError: (error, where) => errors.push(`${where}: ${(error as Error).message}`),
      },
    );
    for (let i = 0; i < 6; i++) {
      simulation.simulate();
      simulation.world.tick();
    }
    assert.equal(simulation.stats().ticks, 6);
    assert.equal(simulation.stats().hookErrors, 6);
    assert.match(errors[0], /^onTick: game\.spawn\('walker'\): x: 3 is outside \[-1, 1\]/);
    assert.match(errors[1], /^onTick: GameEntity\.state \(walker 0\): x: -2 is outside \[-1, 1\]/);
    assert.match(errors[2], /^onTick: game\.emit\('said'\): n: .*300 is outside/);
    assert.equal(simulation.entities.length, 1, 'the bad spawns made nothing');
    assert.equal(simulation.entities[0].state.x, 0, 'the refused state left the walker as it was');
  });

  it('a hitbox that throws leaves that tick unrecorded, reported once a second, and the ticks go on', () => {
    const errors: string[] = [];
    const fragile = defineGame({
      ...corridor,
      name: 'test-fragile',
      entities: {
        walker: {
          state: corridor.entities.walker.state,
          hitbox: () => {
            throw new Error('hitbox bug');
          },
        },
      },
      step: (w) => ({ ...w }),
    });
    const simulation = new GameSimulation(
      fragile.rules({
        onTick: (game) => void (game.entities.length === 0 && game.spawn('walker', { x: 0 })),
      }),
      {
        maxPlayers: 2,
        replicate: (options) => new ReplicationServer({ ...options, maxClients: 2 }),
        onError: (error, where) => errors.push(`${where}: ${(error as Error).message}`),
      },
    );
    for (let i = 0; i < 65; i++) {
      simulation.simulate();
      simulation.world.tick();
    }
    assert.equal(simulation.stats().ticks, 65);
    assert.ok(simulation.stats().hookErrors >= 60, `${simulation.stats().hookErrors} hitbox errors`);
    assert.deepEqual(errors, ['hitbox: hitbox bug', 'hitbox: hitbox bug', 'hitbox: hitbox bug']);
  });
});
