import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineEntity, EntityHistory, ServerWorld } from '../../src/replication/index.js';
import { t } from '../../src/schema/schema.js';

/** The server world: handles, generations, misuse refused at the call, history once per tick. */
const Cube = defineEntity(
  'cube',
  t.object({ position: t.vector3(t.float(-32, 32, 1 / 512)), rest: t.bool() }),
  { priority: 2, position: (v) => [v.position[0], v.position[1], v.position[2]] },
);
const Flag = defineEntity('flag', t.object({ team: t.int(0, 3) }));
const cube = (x: number) => ({ position: [x, 0, 0] as [number, number, number], rest: false });

describe('ServerWorld', () => {
  it('types its names and values', () => {
    const name: 'cube' = Cube.name;
    assert.equal(name, 'cube');
    assert.equal(Cube.priority, 2);
    assert.equal(Flag.priority, 1);
    const world = new ServerWorld({ types: [Cube, Flag], capacity: 4 });
    const e = world.create(Cube, cube(1));
    // @ts-expect-error a flag's value is not a cube's
    assert.throws(() => world.create(Cube, { team: 1 }));
    assert.deepEqual(world.get(e).position, [1, 0, 0]);
  });

  it('reuses ids with a new generation and refuses stale handles', () => {
    const world = new ServerWorld({ types: [Cube, Flag], capacity: 2 });
    const a = world.create(Flag, { team: 1 });
    const b = world.create(Flag, { team: 2 });
    assert.throws(() => world.create(Flag, { team: 0 }), /full \(capacity 2\)/);
    world.destroy(a);
    assert.throws(() => world.set(a, { team: 3 }), /destroyed/);
    assert.throws(() => world.destroy(a), /destroyed/);
    const c = world.create(Flag, { team: 3 });
    assert.equal(c.id, a.id);
    assert.notEqual(c.generation, a.generation);
    assert.equal(world.isAlive(a), false);
    assert.equal(world.isAlive(b), true);
  });

  it('refuses a bad value at the call and leaves the entity as it was', () => {
    const world = new ServerWorld({ types: [Cube], capacity: 2 });
    const e = world.create(Cube, cube(1));
    assert.throws(() => world.set(e, cube(Number.NaN)), /position/);
    assert.throws(() => world.set(e, cube(100)), /position/);
    assert.deepEqual(world.get(e).position, [1, 0, 0]);
    assert.throws(() => world.create(Flag, { team: 1 }), /flag is not in this world/);
    assert.throws(() => new ServerWorld({ types: [Cube], capacity: 0 }), /capacity/);
    assert.throws(() => new ServerWorld({ types: [Cube, Cube], capacity: 1 }), /twice/);
  });

  it('records a changed state once per tick, stamped with the tick', () => {
    const world = new ServerWorld({ types: [Cube], capacity: 2, historyLength: 3 });
    const e = world.create(Cube, cube(1));
    assert.equal(world.tick(), 1);
    const history = world.histories[e.id]!;
    assert.equal(history.latestTick, 1);
    world.set(e, cube(2));
    world.set(e, cube(3));
    world.tick();
    assert.equal(history.size, 2);
    world.set(e, cube(3)); // no change: nothing recorded
    world.tick();
    assert.equal(history.latestTick, 2);
    for (let x = 4; x <= 6; x++) {
      world.set(e, cube(x));
      world.tick();
    }
    assert.equal(history.size, 3);
    assert.equal(history.at(2), null, 'evicted');
    assert.equal(Cube.layout.dequantize(history.at(5)!).position[0], 5);
    assert.equal(Cube.layout.dequantize(history.at(100)!).position[0], 6);
  });

  it("keeps each entity's newest and oldest tick beside its history, with or without blobs", () => {
    const Named = defineEntity('named', t.object({ hp: t.int(0, 100), name: t.string(8) }));
    const world = new ServerWorld({ types: [Cube, Named], capacity: 4, historyLength: 3 });
    const c = world.create(Cube, cube(1));
    const n = world.create(Named, { hp: 1, name: 'a' });
    const ticks = (id: number) => [world.latestTicks[id], world.oldestTicks[id]];
    assert.deepEqual(ticks(c.id), [-1, -1], 'nothing before the first tick');
    world.tick();
    assert.deepEqual(ticks(c.id), [1, 1]);
    assert.deepEqual(ticks(n.id), [1, 1]);
    // A set without a tick is not in the history yet; the value read back is the new one.
    world.set(c, cube(2));
    world.set(n, { hp: 1, name: 'b' });
    assert.equal(world.histories[c.id]!.size, 1);
    assert.deepEqual(world.get(c).position, [2, 0, 0]);
    assert.equal(Cube.layout.dequantize(world.histories[c.id]!.latest!).position[0], 1);
    world.tick();
    world.set(c, cube(2)); // unchanged: neither is recorded
    world.set(n, { hp: 1, name: 'b' });
    world.tick();
    assert.deepEqual(ticks(c.id), [2, 1]);
    assert.deepEqual(ticks(n.id), [2, 1]);
    for (let x = 3; x <= 5; x++) {
      world.set(c, cube(x));
      world.set(n, { hp: x, name: 'b' });
      world.tick();
    }
    // Three states held: ticks 4, 5, 6.
    assert.deepEqual(ticks(c.id), [6, 4]);
    assert.deepEqual(ticks(n.id), [6, 4]);
    const h = world.histories[c.id]!;
    assert.deepEqual([h.tickAt(0), h.tickAt(1), h.tickAt(2)], [6, 5, 4]);
    assert.equal(Cube.layout.dequantize(h.stateAt(2)).position[0], 3);
    assert.equal(Named.layout.dequantize(world.histories[n.id]!.latest!).hp, 5);
    // The id taken by an entity of another type starts a history of that type.
    world.destroy(c);
    const m = world.create(Named, { hp: 7, name: 'c' });
    assert.equal(m.id, c.id);
    world.tick();
    assert.deepEqual(ticks(m.id), [7, 7]);
    assert.deepEqual(world.get(m), { hp: 7, name: 'c' });
    assert.equal(Named.layout.dequantize(world.histories[m.id]!.latest!).hp, 7);
  });

  it("keeps neighbouring ids' histories apart in their type's flat store, and ids of other types in another", () => {
    const world = new ServerWorld({ types: [Cube, Flag], capacity: 3, historyLength: 3 });
    const a = world.create(Cube, cube(1));
    const b = world.create(Cube, cube(-1));
    const f = world.create(Flag, { team: 2 });
    world.tick();
    for (let x = 2; x <= 5; x++) {
      world.set(a, cube(x));
      world.set(b, cube(-x));
      world.set(f, { team: x % 4 });
      world.tick();
    }
    assert.equal(world.historyStores[a.id], world.historyStores[b.id]);
    assert.notEqual(world.historyStores[a.id], world.historyStores[f.id]);
    assert.notEqual(world.historyOffsets[a.id], world.historyOffsets[b.id]);
    const ha = world.histories[a.id]!;
    const hb = world.histories[b.id]!;
    assert.equal(ha.record, world.historyStores[a.id]);
    for (let k = 0; k < 3; k++) {
      assert.equal(Cube.layout.dequantize(ha.stateAt(k)).position[0], 5 - k);
      assert.equal(Cube.layout.dequantize(hb.stateAt(k)).position[0], -(5 - k));
      assert.equal(ha.tickAt(k), 5 - k);
    }
    assert.equal(Flag.layout.dequantize(world.histories[f.id]!.latest!).team, 1);
    // A record that does not fit the store given is refused.
    assert.throws(() => new EntityHistory(Flag.layout as never, 4, new Uint32Array(8), 2), /does not fit/);
  });
});
