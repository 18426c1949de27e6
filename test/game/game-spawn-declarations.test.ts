/** defineGame's prediction settings: `move`, `predict`, `spawns`, `maxSpawnsPerTick` checked at the call. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineGame, wiringOf } from '../../src/game/define-game.js';
import { t } from '../../src/schema/schema.js';

const place = t.object({ x: t.float(-8, 8, 1 / 64) });
const base = {
  name: 'decl',
  player: 'avatar' as const,
  input: t.object({ fire: t.bool() }),
  step: (a: { x: number }) => a,
};
const at = (s: { x: number }) => [s.x, 0] as const;

describe('prediction declarations', () => {
  it('refuses predict without a move, near without a position, a bad mode and bad spawns settings', () => {
    const game =
      (entities: object, extra: object = {}) =>
      () =>
        defineGame({ ...base, entities: { avatar: { state: place }, ...entities }, ...extra } as never);
    assert.throws(
      game({ bolt: { state: place, predict: 'spawner' } }),
      /entities\.bolt\.predict needs a move/,
    );
    assert.throws(
      game({ crate: { state: place, move: (s: unknown) => s, predict: { near: 3 } } }),
      /needs a position/,
    );
    assert.throws(
      game({ crate: { state: place, move: (s: unknown) => s, predict: { near: -1 }, position: at } }),
      /predict must be/,
    );
    assert.throws(
      game({ crate: { state: place, move: (s: unknown) => s, predict: 'always' } }),
      /predict must be/,
    );
    assert.throws(game({ crate: { state: place, move: 3 } }), /move must be a function/);
    assert.throws(game({}, { spawns: 'bolt' }), /spawns must be a function/);
    assert.throws(
      game({}, { spawns: () => [], maxSpawnsPerTick: 17 }),
      /maxSpawnsPerTick must be an integer in \[1, 16\]/,
    );
    assert.throws(game({}, { spawns: () => [], maxSpawnsPerTick: 0 }), /maxSpawnsPerTick/);
  });

  it('changes the input wire and the event list only for a game with spawns', () => {
    const plain = defineGame({
      ...base,
      entities: { avatar: { state: place }, crate: { state: place, move: (s) => s } },
    });
    const withSpawns = defineGame({
      ...base,
      entities: { avatar: { state: place }, bolt: { state: place, move: (s) => s, predict: 'spawner' } },
      spawns: (a, i) => (i.fire ? [{ type: 'bolt', key: 0, state: a }] : []),
    });
    const p = wiringOf('test', plain);
    const s = wiringOf('test', withSpawns);
    assert.equal(p.prediction.wireInput, null);
    assert.equal(p.events.length, 1, 'the owner event only');
    assert.equal(
      p.prediction.types.size,
      1,
      'a move without predict: the server moves it, nobody predicts it',
    );
    assert.notEqual(s.prediction.wireInput, null);
    assert.equal(s.events.at(-1), s.prediction.verdict, 'the verdict event last');
    assert.ok(s.prediction.spawner.has(withSpawns.entityTypes.bolt));
  });
});
