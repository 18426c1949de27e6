/**
 * The server's run of a game's `spawns` and `move`: whatever they return (a throw, a bad key, too
 * many, an unknown type, a state outside the schema), the tick goes on, nothing beyond
 * maxSpawnsPerTick is created, and the failures are counted.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineGame } from '../../src/game/define-game.js';
import { GameSimulation } from '../../src/game/game-simulation.js';
import { ReplicationServer } from '../../src/replication/index.js';
import { t } from '../../src/schema/schema.js';

const coord = t.float(-8, 8, 1 / 64);
let produce: () => unknown = () => [];
const game = defineGame({
  name: 'spawns-server',
  player: 'avatar',
  maxSpawnsPerTick: 2,
  entities: {
    avatar: { state: t.object({ x: coord }) },
    bolt: {
      state: t.object({ x: coord, ttl: t.uint8() }),
      move: (b) => (b.ttl === 0 ? null : b.ttl === 7 ? { x: 99, ttl: 6 } : { ...b, ttl: b.ttl - 1 }),
      predict: 'spawner',
    },
  },
  input: t.object({ fire: t.bool() }),
  step: (a) => a,
  spawns: () => produce() as never,
});

/** A simulation whose one player's input is always `{ fire: true }` (no connection: a zone-like seam). */
class Fed extends GameSimulation {
  protected override takeInput(): unknown {
    return { fire: true };
  }
}

function simulation() {
  const sim = new Fed(game.rules({ onJoin: (_g, p) => void p.spawn({ x: 0 }) }), {
    maxPlayers: 2,
    replicate: (o) => new ReplicationServer({ ...o, maxClients: 2 }),
    onError: () => {},
  });
  sim.join(0);
  return sim;
}

const tick = (sim: GameSimulation) => {
  sim.simulate();
  sim.world.tick();
};
const bolts = (sim: GameSimulation) => sim.entities.filter((e) => e.type === 'bolt').length;

describe('the server runs spawns and move', () => {
  it('creates at most maxSpawnsPerTick, with distinct keys in 0..15, of known types, with states in their schema', () => {
    const sim = simulation();
    const ok = { type: 'bolt', key: 0, state: { x: 1, ttl: 3 } };
    const cases: [unknown, number][] = [
      [[ok, { ...ok, key: 1 }, { ...ok, key: 2 }], 2],
      [[ok, ok], 1],
      [
        [
          { ...ok, key: 16 },
          { ...ok, key: -1 },
          { ...ok, key: 0.5 },
        ],
        0,
      ],
      [[{ ...ok, type: 'dragon' }], 0],
      [[{ ...ok, state: { x: 1000, ttl: 3 } }], 0],
      [[null, 3, 'x'], 0],
      ['not an array', 0],
    ];
    for (const [result, created] of cases) {
      produce = () => result;
      const before = sim.stats().spawnsCreated;
      tick(sim);
      assert.equal(sim.stats().spawnsCreated - before, created, JSON.stringify(result));
    }
    produce = () => {
      throw new Error('spawns broke');
    };
    tick(sim);
    const stats = sim.stats();
    assert.ok(stats.spawnsVetoed >= 8 && stats.stepErrors >= 2, JSON.stringify(stats));
  });

  it('moves each tick, destroys on null, and keeps the state a move makes outside the schema', () => {
    const sim = simulation();
    produce = () => [{ type: 'bolt', key: 0, state: { x: 1, ttl: 8 } }];
    tick(sim);
    produce = () => [];
    assert.equal(bolts(sim), 1);
    const bolt = sim.entities.find((e) => e.type === 'bolt')!;
    tick(sim); // ttl 8 → 7
    assert.deepEqual(bolt.state, { x: 1, ttl: 7 });
    const errors = sim.stats().stepErrors;
    tick(sim); // x: 99 is outside the schema: kept as it was, counted
    assert.deepEqual(bolt.state, { x: 1, ttl: 7 });
    assert.equal(sim.stats().stepErrors, errors + 1);
    for (let i = 0; i < 20; i++) tick(sim);
    assert.equal(bolts(sim), 1, 'stuck at ttl 7 by the refused move');
    produce = () => [{ type: 'bolt', key: 0, state: { x: 2, ttl: 2 } }];
    tick(sim);
    produce = () => [];
    assert.equal(bolts(sim), 2);
    for (let i = 0; i < 3; i++) tick(sim); // ttl 2 → 1 → 0 → null: destroyed
    assert.equal(bolts(sim), 1, 'the short bolt is gone');
  });
});
