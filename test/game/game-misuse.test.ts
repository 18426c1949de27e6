/**
 * The caller's mistakes fail loudly at the call, naming the call and the argument: a bad game
 * declaration, bad server options, an input outside the schema, unknown events and entity types.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import '../../src/node.js';
import { defineGame } from '../../src/game/define-game.js';
import { GameClient } from '../../src/game/game-client.js';
import { GameServer } from '../../src/game/game-server.js';
import { GameSimulation } from '../../src/game/game-simulation.js';
import { ReplicationServer } from '../../src/replication/replication-server.js';
import { t } from '../../src/schema/schema.js';
import { arena, arenaRules, emptyLog, STILL } from '../support/test-game.js';

const place = t.object({ x: t.float(-1, 1, 0.01) });
const base = {
  name: 'misuse',
  entities: { dot: { state: place } },
  player: 'dot' as const,
  input: t.object({ dx: t.int(-1, 1) }),
  step: (s: { x: number }) => s,
};

describe('game API misuse', () => {
  it('defineGame refuses a bad declaration, naming the setting', () => {
    assert.throws(() => defineGame({ ...base, name: 'a b' }), /defineGame: name must be/);
    assert.throws(() => defineGame({ ...base, name: '' }), /defineGame: name must be/);
    assert.throws(() => defineGame({ ...base, tickRate: 0 }), /defineGame: tickRate must be in \(0, 1000\]/);
    assert.throws(() => defineGame({ ...base, maxEntities: 1.5 }), /defineGame: maxEntities/);
    assert.throws(
      () => defineGame({ ...base, player: 'nobody' as 'dot' }),
      /defineGame: player must name one/,
    );
    assert.throws(() => defineGame({ ...base, step: 1 as never }), TypeError);
    assert.throws(() => defineGame({ ...base, entities: {} } as never), /at least one entity type/);
    const game = defineGame(base);
    assert.equal(game.tickRate, 30);
    assert.equal(game.maxEntities, 1024);
    assert.equal(game.version, 1);
    assert.equal(defineGame(base).protocolId, game.protocolId, 'the protocol id comes from the name');
    assert.notEqual(defineGame({ ...base, version: 2 }).protocolId, game.protocolId);
    assert.throws(() => game.rules({ onJoin: 3 as never }), /misuse.rules: onJoin must be a function/);
  });

  it("an entity type's position is where the replication's interest (and a zoned world) places it", () => {
    assert.throws(
      () => defineGame({ ...base, entities: { dot: { state: place, position: [0, 0] as never } } }),
      /defineGame: entities.dot.position must be a function/,
    );
    const game = defineGame({
      ...base,
      entities: { dot: { state: place, position: (s: { x: number }) => [s.x * 10, 1] as const } },
    });
    assert.deepEqual(game.entityTypes.dot.position?.({ x: 0.5 }), [5, 1]);
    const simulation = new GameSimulation(game.rules({}), {
      maxPlayers: 1,
      replicate: (options) =>
        new ReplicationServer({
          ...options,
          interest: { grid: { min: [-20, -20], max: [20, 20], cellSize: 5 }, radius: 3 },
        }),
    });
    const dot = simulation.spawn('dot', { x: 0.5 });
    simulation.world.tick();
    const p = dot.id * 3;
    assert.deepEqual(
      [...simulation.world.positions.subarray(p, p + 2)],
      [5, 1],
      'the world placed it by position',
    );
    assert.equal(defineGame(base).entityTypes.dot.position, undefined, 'no position: relevant to everyone');
  });

  it('GameServer.start refuses bad options before opening anything', async () => {
    const rules = arenaRules(emptyLog());
    await assert.rejects(GameServer.start(rules, { port: -1 }), /GameServer.start: port must be/);
    await assert.rejects(GameServer.start(rules, { maxPlayers: 0 }), /GameServer.start: maxPlayers/);
    await assert.rejects(GameServer.start(rules, { transports: [] }), /transports must list/);
    await assert.rejects(GameServer.start(rules, { transports: ['pigeon' as 'udp'] }), /"pigeon" is not udp/);
    await assert.rejects(GameServer.start({} as never), /rules must be what game.rules/);
    await assert.rejects(
      GameServer.start(rules, { maxPlayers: 8, maxPlayersPerAddress: 9 }),
      /GameServer.start: maxPlayersPerAddress must be an integer in \[1, maxPlayers = 8\], got 9/,
    );
    await assert.rejects(GameServer.start(rules, { maxPlayersPerAddress: 0 }), /maxPlayersPerAddress/);
    await assert.rejects(
      GameServer.start(rules, { publicAddress: 'game.example' }),
      /GameServer.start: publicAddress must be "a.b.c.d:port" or "\[ipv6\]:port", got "game.example"/,
    );
    await assert.rejects(GameServer.start(rules, { host: 7 as never }), /GameServer.start: host must be/);
    await assert.rejects(
      GameServer.start(rules, { joinRate: { perSecond: 0 } }),
      /GameServer.start: joinRate.perSecond must be a number > 0, got 0/,
    );
    await assert.rejects(GameServer.start(rules, { joinRate: { burst: Number.NaN } }), /joinRate.burst/);
    await assert.rejects(
      GameServer.start(rules, { allowOrigins: ['https://game.example/play'] }),
      /GameServer.start: allowOrigins must be '\*' or a list of origins/,
    );
    await assert.rejects(GameServer.start(rules, { allowOrigins: 'any' as '*' }), /allowOrigins/);
    await assert.rejects(
      GameServer.start(rules, { clientAddress: 'x-forwarded-for' as never }),
      /GameServer.start: clientAddress must be a function/,
    );
  });

  it('GameClient refuses a bad target, another game, an input or a message outside the schema and unknown events', async () => {
    await assert.rejects(GameClient.connect(arena, 'not a url'), /GameClient.connect: give the server's URL/);
    await assert.rejects(GameClient.connect({} as never, 'http://127.0.0.1:1'), /defineGame returned/);
    const server = await GameServer.start(arenaRules(emptyLog()), { port: 0, transports: ['udp'] });
    try {
      const other = defineGame({ ...base, name: 'other' });
      await assert.rejects(
        GameClient.connect(other, server.url),
        /serves the game "test-arena", not "other"/,
      );
      const client = await GameClient.connect(arena, server.url);
      try {
        assert.throws(() => client.update({ ...STILL, dx: 2 }), /GameClient.update: input does not fit/);
        assert.throws(() => client.update({ ...STILL, aimX: Number.NaN }), RangeError);
        assert.throws(() => client.on('nope' as 'fired', () => {}), /GameClient.on: "nope" is not one of/);
        assert.throws(
          () => client.send('chat', { text: 'x'.repeat(65) }),
          /^RangeError: GameClient\.send\('chat'\): text: .*65.*64/,
          'the call, the message and the field',
        );
        assert.throws(
          () => client.send('chat', {} as never),
          /^RangeError: GameClient\.send\('chat'\): text: /,
        );
        assert.equal(client.status, 'connected', 'a refused input changes nothing');
      } finally {
        client.close();
      }
    } finally {
      await server.close();
    }
  });
});

describe('the rules API (GameSimulation, no network)', () => {
  let simulation: GameSimulation;
  before(() => {
    simulation = new GameSimulation(arenaRules(emptyLog()), {
      maxPlayers: 4,
      replicate: (options) => new ReplicationServer({ ...options, maxClients: 4 }),
    });
  });

  it('joins a player, spawns its entity, and refuses unknown names and strangers', () => {
    const player = simulation.join(0);
    assert.equal(player.entity?.type, 'avatar');
    assert.deepEqual(player.state, { x: 0, y: 0, score: 0 });
    assert.throws(() => simulation.emit('nope', {}), /game.emit: "nope" is not one of the game's events/);
    assert.throws(
      () => simulation.spawn('ghost', {}),
      /game.spawn: "ghost" is not one of the game's entity types/,
    );
    assert.throws(
      () => simulation.hitTest({} as never),
      /game.hitTest: player must be a player in this game/,
    );
    assert.throws(
      () => simulation.hitTest(player, { type: 'circle', x: 0, y: 0, radius: -1 }),
      /radius must be >= 0/,
    );
    assert.throws(() => simulation.hitTest(player, { type: 'cone' } as never), /game.hitTest/);
    assert.throws(() => simulation.join(0), /slot 0 is taken/);
  });

  it("a destroyed entity's state cannot be read or set; a player's state follows its spawns", () => {
    const player = simulation.playerAt(0)!;
    const first = player.entity!;
    const second = player.spawn({ x: 1, y: 1, score: 3 });
    assert.equal(first.alive, false);
    assert.throws(() => first.state, /GameEntity.state: avatar \d+ was destroyed/);
    assert.equal((player.state as { score: number } | null)?.score, 3);
    assert.equal(second.owner, player);
    assert.throws(
      () => {
        (second.state as { score: number }).score = 9;
      },
      TypeError,
      'a state changed in place would never reach the clients: assign a new one',
    );
    simulation.leave(player);
    assert.equal(second.alive, false, "a leaving player's entity goes");
    assert.equal(simulation.players.length, 0);
  });
});
