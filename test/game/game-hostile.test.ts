/**
 * What a remote peer sends never stops a GameServer: garbage datagrams on its UDP port, inputs
 * outside the game's input schema from a client built to send them, and the rules' own throws.
 */
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { describe, it } from 'node:test';
import '../../src/node.js';
import { defineGame } from '../../src/game/define-game.js';
import { GameClient } from '../../src/game/game-client.js';
import { GameServer } from '../../src/game/game-server.js';
import { prng } from '../../src/random/prng.js';
import { t } from '../../src/schema/schema.js';
import { testSeed } from '../support/seed.js';
import { arena, arenaRules, emptyLog, play, STILL } from '../support/test-game.js';
import { until } from '../support/until.js';

const SEED = testSeed('game-hostile');

describe('game API under hostile input', () => {
  it('garbage datagrams on the UDP port change nothing for a playing client', async () => {
    const log = emptyLog();
    const server = await GameServer.start(arenaRules(log, { moveTarget: false }), {
      port: 0,
      transports: ['udp'],
    });
    const client = await GameClient.connect(arena, server.url);
    const socket = createSocket('udp4');
    try {
      const random = prng(SEED);
      const ticks = server.stats().ticks;
      let sent = 0;
      await play(
        [client],
        () => ({ ...STILL, dx: 1 }),
        'garbage sent while playing',
        10000,
        () => {
          for (let i = 0; i < 50; i++) {
            const bytes = new Uint8Array(1 + Math.floor(random() * 1199));
            for (let j = 0; j < bytes.length; j++) bytes[j] = Math.floor(random() * 256);
            // Now and then a netcode-looking first byte (a connection request, a payload).
            if (random() < 0.3) bytes[0] = random() < 0.5 ? 0 : 0x05 | (Math.floor(random() * 8) << 4);
            socket.send(bytes, server.port, '127.0.0.1');
            sent++;
          }
          return sent >= 3000 && (client.me?.state.x ?? 0) > 5;
        },
      );
      assert.equal(client.status, 'connected');
      assert.ok(server.stats().ticks > ticks);
      assert.ok(server.stats().datagramsReceived >= sent * 0.5, 'the garbage reached the server');
    } finally {
      socket.close();
      client.close();
      await server.close();
    }
  });

  it('inputs outside the schema (a client built to send them) never move an avatar more than a step', async () => {
    // The same game but for a wider dx (two bits either way): the server's schema refuses dx = 2.
    const cheat = defineGame({
      name: arena.name,
      tickRate: arena.tickRate,
      entities: {
        avatar: { state: arena.entityTypes.avatar.schema },
        target: { state: arena.entityTypes.target.schema },
      },
      player: 'avatar',
      input: t.object({
        dx: t.int(-1, 2),
        fire: t.bool(),
        aimX: t.float(-64, 64, 1 / 64),
        aimY: t.float(-64, 64, 1 / 64),
        mode: t.int(0, 1),
      }),
      step: (a, input) => ({ ...a, x: a.x + input.dx * 0.25 }),
      events: { fired: arena.eventTypes.fired.schema },
    });
    const log = emptyLog();
    const server = await GameServer.start(arenaRules(log, { moveTarget: false }), {
      port: 0,
      transports: ['udp'],
    });
    const client = await GameClient.connect(cheat, server.url);
    try {
      const ticks = server.stats().ticks;
      await play(
        [client],
        () => ({ ...STILL, dx: 2 }),
        'a second of cheating',
        5000,
        () => server.stats().ticks > ticks + 30,
      );
      assert.ok(log.largestStep <= 0.25, `a step of ${log.largestStep} m`);
      const x = server.simulation.players[0]?.state?.x ?? 0;
      assert.ok(x <= 0.25 * (server.stats().ticks - ticks), `x ${x}`);
    } finally {
      client.close();
      await server.close();
    }
  });

  it("a hook that throws is reported and the game goes on (the rules' fault, not the server's end)", async () => {
    const errors: string[] = [];
    const rules = arena.rules({
      onJoin: (_game, player) => void player.spawn({ x: 0, y: 0, score: 0 }),
      onTick: () => {
        throw new Error('rules bug');
      },
    });
    const server = await GameServer.start(rules, {
      port: 0,
      transports: ['udp'],
      onError: (error, where) => errors.push(`${where}: ${(error as Error).message}`),
    });
    const client = await GameClient.connect(arena, server.url);
    try {
      await play(
        [client],
        () => ({ ...STILL, dx: 1 }),
        'the avatar to move',
        5000,
        () => (client.me?.state.x ?? 0) > 2,
      );
      assert.ok(errors.length >= 5, `${errors.length} errors`);
      assert.equal(errors[0], 'onTick: rules bug');
      assert.equal(server.stats().hookErrors, errors.length);
    } finally {
      client.close();
      await server.close();
    }
  });

  it("a step that walks an avatar past its schema's range (as the client's inputs chose) is reported; the server goes on", async () => {
    // x in [-2, 2] and a step that never clamps: holding right, the third metre does not fit.
    const narrow = defineGame({
      name: 'narrow',
      tickRate: 30,
      entities: { avatar: { state: t.object({ x: t.float(-2, 2, 1 / 64) }) } },
      player: 'avatar',
      input: t.object({ dx: t.int(-1, 1) }),
      step: (a, input) => ({ x: a.x + input.dx * 0.25 }),
    });
    const errors: string[] = [];
    const server = await GameServer.start(
      narrow.rules({ onJoin: (_game, player) => void player.spawn({ x: 0 }) }),
      { port: 0, transports: ['udp'], onError: (_error, where) => errors.push(where) },
    );
    const client = await GameClient.connect(narrow, server.url);
    const timer = setInterval(() => {
      try {
        client.update({ dx: 1 });
      } catch {
        // The client's own prediction may refuse it too: the server is what is under test.
      }
    }, 1000 / 60);
    try {
      await until('the step to overflow on the server', 10000, () => errors.length >= 3);
      const ticks = server.stats().ticks;
      await until('the server to go on ticking', 5000, () => server.stats().ticks > ticks + 5);
      assert.ok(
        errors.every((where) => where === 'step'),
        errors.join(),
      );
      assert.equal(server.stats().players, 1);
      assert.equal(server.simulation.players[0].entity?.state.x, 2, 'the entity keeps its last state');
    } finally {
      clearInterval(timer);
      client.close();
      await server.close();
    }
  });
});
