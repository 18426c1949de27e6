/**
 * Zones stepping in lockstep with handoffs through the embedded store: every entity is owned by
 * exactly one zone at every tick, none is lost or duplicated, every input is taken once in order
 * across handoffs, and a world of four zones ends exactly as the same world in one zone.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ZoneMap } from '../../src/zones/zone-map.js';
import { ZoneServer } from '../../src/zones/zone-server.js';
import { testSeed } from '../support/seed.js';
import { botInput, SIDE, zoneRules } from '../support/zone-game.js';
import { LockstepZones } from '../support/zone-lockstep.js';

const SEED = testSeed('zone-lockstep');
const WANDERERS = 100;
const PLAYERS = [7, 8, 9, 10, 11, 12, 13, 14];
const TICKS = 600;

const grid = (columns: number, rows: number, cellZones: number[]) =>
  new ZoneMap({ minX: 0, minY: 0, maxX: SIDE, maxY: SIDE, columns, rows, cellZones });

async function run(
  map: ZoneMap,
  onTick?: (cluster: LockstepZones, tick: number) => void,
): Promise<LockstepZones> {
  const cluster = await LockstepZones.start({
    map,
    rules: (zone) => zoneRules(zone, SEED, WANDERERS),
    players: PLAYERS,
    input: (playerId, tick) => botInput(SEED, playerId, tick),
  });
  for (let tick = 1; tick <= TICKS; tick++) {
    await cluster.step();
    onTick?.(cluster, tick);
  }
  return cluster;
}

describe('zones in lockstep', () => {
  it('owns every entity in exactly one zone at every tick, through hundreds of handoffs', async () => {
    const population: number[] = [];
    const cluster = await run(grid(2, 2, [0, 1, 2, 3]), (c) => population.push(c.lastOwned.size));
    assert.deepEqual(cluster.audit.problems, []);
    assert.equal(cluster.audit.ticks, TICKS);
    // Before tick 1 only the players' walkers exist; zone 0 spawns the wanderers in tick 1.
    assert.equal(population[0], PLAYERS.length);
    for (let i = 1; i < TICKS; i++) assert.equal(population[i], PLAYERS.length + WANDERERS, `tick ${i + 1}`);
    assert.ok(cluster.commits.ok > WANDERERS, `${cluster.commits.ok} handoffs`);
    assert.deepEqual([...cluster.commits.refused], []);
    for (let zone = 0; zone < 4; zone++) assert.ok(cluster.owned(zone).length > 0, `zone ${zone} owns some`);
  });

  it('takes every input once, in order, across handoffs', async () => {
    const cluster = await run(grid(2, 2, [0, 1, 2, 3]));
    const hosts = new Set(cluster.host.values());
    assert.ok(hosts.size > 1, 'the players ended in several zones');
    const data = cluster.playerData();
    assert.equal(data.size, PLAYERS.length);
    for (const [playerId, d] of data) {
      const { taken, wrong, last } = d as { taken: number; wrong?: number; last: number };
      assert.equal(wrong, undefined, `player ${playerId}: inputs out of order or repeated`);
      assert.equal(taken, TICKS, `player ${playerId}`);
      assert.equal(last, TICKS);
    }
  });

  it('ends a world of 4 zones (and of 3 uneven ones) exactly as the same world in one zone', async () => {
    const one = await run(grid(1, 1, [0]));
    const expected = one.everything();
    const expectedPlayers = one.playerData();
    assert.equal(expected.size, PLAYERS.length + WANDERERS);
    for (const map of [grid(2, 2, [0, 1, 2, 3]), grid(4, 1, [0, 1, 1, 2])]) {
      const zoned = await run(map);
      assert.deepEqual(zoned.everything(), expected);
      assert.deepEqual(zoned.playerData(), expectedPlayers);
    }
  });

  it('restores a zone from its snapshot with the same entities, players, data and world ids', async () => {
    const cluster = await run(grid(2, 2, [0, 1, 2, 3]));
    const zone = cluster.zones.find((z) => z.simulation.players.length > 0)!;
    const snapshot = zone.snapshot();
    const restored = ZoneServer.restore(
      {
        rules: zoneRules(zone.zone, SEED, WANDERERS),
        map: zone.map,
        zone: zone.zone,
        epoch: zone.epoch + 1,
        handoff: { margin: 2, minDwellTicks: 30 },
      },
      JSON.parse(JSON.stringify(snapshot)),
    );
    assert.equal(restored.tick, zone.tick);
    assert.deepEqual(restored.snapshot(), snapshot);
    const a = zone.step().feed;
    const b = restored.step().feed;
    // A restored entity is new to the restored zone's world, so its first batch names it even
    // when it did not change (a walker idle at a wall): harmless, the state is the one it had.
    const named = new Set(a.entities.map((e) => e.worldId));
    const before = new Map(snapshot.entities.map((e) => [e.worldId, e.state]));
    const extra = b.entities.filter((e) => !named.has(e.worldId));
    for (const e of extra) assert.deepEqual(e.state, before.get(e.worldId), `entity ${e.worldId} unchanged`);
    const same = { ...b, epoch: a.epoch, entities: b.entities.filter((e) => named.has(e.worldId)) };
    assert.deepEqual(same, a, 'the same next tick');
  });

  it('hands a player pacing back and forth on a border at most once per dwell, whatever its inputs', async () => {
    // Spawned at (50, 50), on the border of two zones: between x = 48 and 52, again and again.
    const pacing = (_playerId: number, tick: number) => ({
      dx: Math.floor((tick + 4) / 8) % 2 === 0 ? 1 : -1,
      dy: 0,
      tick,
    });
    const cluster = await LockstepZones.start({
      map: grid(2, 1, [0, 1]),
      rules: (zone) => zoneRules(zone, SEED, 0),
      players: [1],
      input: pacing,
      handoff: { margin: 1, minDwellTicks: 30 },
    });
    for (let tick = 1; tick <= TICKS; tick++) await cluster.step();
    assert.deepEqual(cluster.audit.problems, []);
    assert.ok(cluster.commits.ok >= 2, `${cluster.commits.ok} handoffs: it does cross`);
    assert.ok(
      cluster.commits.ok <= Math.ceil(TICKS / 30),
      `${cluster.commits.ok} handoffs in ${TICKS} ticks`,
    );
    const [data] = cluster.playerData().values() as Iterable<{ taken: number; wrong?: number }>;
    assert.equal(data.taken, TICKS);
    assert.equal(data.wrong, undefined);
  });
});
