/**
 * `visibility` in defineGame over a real GameServer (UDP): an owner field reaches its owner only,
 * a team field the players of the entity's team only, a team change grants and withdraws from
 * the next tick, and an event restricted to a part reaches its holders only.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import '../../src/node.js';
import { defineGame } from '../../src/game/define-game.js';
import { GameClient } from '../../src/game/game-client.js';
import { GameServer } from '../../src/game/game-server.js';
import { t } from '../../src/schema/schema.js';
import { until } from '../support/until.js';

const coord = t.float(-64, 64, 1 / 64);
const arena = defineGame({
  name: 'visibility',
  entities: {
    avatar: {
      state: t.object({ x: coord, ammo: t.uint8(), ping: t.object({ x: coord, y: coord }) }),
      visibility: { ammo: 'owner', ping: 'team' },
    },
  },
  input: t.object({ team: t.int(0, 2) }),
  step: (a) => a,
  events: { reload: t.object({ ammo: t.uint8() }) },
});

const rules = arena.rules({
  onJoin(game, player) {
    player.spawn({ x: game.players.length, ammo: 10 + player.index, ping: { x: player.index, y: 1 } });
  },
  onTick(game) {
    for (const player of game.players) {
      // The input asks for a team (0: none): the rules set it.
      const wanted = player.input?.team ?? 0;
      const team = wanted === 0 ? null : wanted - 1;
      if (player.team !== team) player.team = team;
      if (player.entity !== null && game.tick % 10 === 0)
        game.emit(
          'reload',
          { ammo: player.entity.state.ammo },
          { part: { entity: player.entity, field: 'ammo' } },
        );
    }
  },
});

describe('visibility in a game', () => {
  it('owner and team fields reach their audience only; a team change grants and withdraws', async () => {
    const server = await GameServer.start(rules, { port: 0, transports: ['udp'] });
    const a = await GameClient.connect(arena, server.url);
    const b = await GameClient.connect(arena, server.url);
    const reloads: number[][] = [[], []];
    a.on('reload', (v) => reloads[0].push(v.ammo));
    b.on('reload', (v) => reloads[1].push(v.ammo));
    let teams = [1, 2]; // a on team 0, b on team 1
    const timer = setInterval(() => {
      a.update({ team: teams[0] });
      b.update({ team: teams[1] });
    }, 1000 / 60);
    try {
      await until(
        'both see both',
        10_000,
        () => a.me !== null && b.me !== null && a.entities.length === 1 && b.entities.length === 1,
      );
      await until(
        'own fields',
        10_000,
        () => a.me?.state.ammo !== undefined && b.me?.state.ammo !== undefined,
      );
      const aMe = a.me!;
      assert.equal(typeof aMe.state.ammo, 'number', 'the owner sees its ammo');
      assert.equal(a.entities[0].state.ammo, undefined, "a never sees b's ammo");
      assert.equal(b.entities[0].state.ammo, undefined, "b never sees a's ammo");
      assert.equal(a.entities[0].state.ping, undefined, 'other team: no ping');
      teams = [2, 2]; // a joins b's team
      await until(
        'the team grant',
        10_000,
        () => a.entities[0]?.state.ping !== undefined && b.entities[0]?.state.ping !== undefined,
      );
      assert.equal(a.entities[0].state.ammo, undefined, 'a team does not grant the owner field');
      teams = [1, 2]; // a leaves again
      await until(
        'the withdraw',
        10_000,
        () => a.entities[0]?.state.ping === undefined && b.entities[0]?.state.ping === undefined,
      );
      await until('reload events', 10_000, () => reloads[0].length > 1 && reloads[1].length > 1);
      // Each client's reloads carry its own ammo only (the ammos differ: 10 + slot).
      assert.deepEqual(new Set(reloads[0]), new Set([a.me!.state.ammo]));
      assert.deepEqual(new Set(reloads[1]), new Set([b.me!.state.ammo]));
      assert.notEqual(a.me!.state.ammo, b.me!.state.ammo);
      assert.equal(a.entities.length, 1, 'parts are not entities of their own');
    } finally {
      clearInterval(timer);
      a.close();
      b.close();
      await server.close();
    }
  });

  it('misuse throws at the call', async () => {
    let thrown = '';
    let teamError = '';
    const server = await GameServer.start(
      arena.rules({
        onJoin(game, player) {
          const entity = player.spawn({ x: 0, ammo: 1, ping: { x: 0, y: 0 } });
          try {
            game.emit('reload', { ammo: 1 }, { part: { entity, field: 'x' } });
          } catch (error) {
            thrown = (error as Error).message;
          }
          try {
            player.team = 32;
          } catch (error) {
            teamError = (error as Error).message;
          }
        },
      }),
      { port: 0, transports: ['udp'] },
    );
    const client = await GameClient.connect(arena, server.url);
    const timer = setInterval(() => client.update({ team: 0 }), 1000 / 60);
    try {
      await until('joined', 10_000, () => thrown !== '');
      assert.match(thrown, /not a private field of avatar/);
      assert.match(teamError, /\[0, 31\]/);
    } finally {
      clearInterval(timer);
      client.close();
      await server.close();
    }
    assert.throws(
      () =>
        defineGame({
          name: 'bad',
          entities: { avatar: { state: t.object({ x: t.uint8() }), visibility: { x: 'everyone' as never } } },
          input: t.object({ k: t.bool() }),
          step: (a) => a,
        }),
      /'owner' or 'team'/,
    );
  });
});
