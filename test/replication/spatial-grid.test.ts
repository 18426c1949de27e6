/**
 * SpatialGrid: queries equal a brute-force scan for random worlds under random inserts, moves
 * (inside and across cells, and outside the bounds) and removals, in 2D and 3D; misuse throws.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prng } from '../../src/random/prng.js';
import { SpatialGrid } from '../../src/replication/spatial-grid.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('spatial grid tests');

interface World {
  grid: SpatialGrid;
  present: Set<number>;
  pos: Float64Array;
}

function bruteForce(world: World, x: number, y: number, z: number, r: number): number[] {
  const found: number[] = [];
  for (const id of world.present) {
    const dx = world.pos[id * 3] - x;
    const dy = world.pos[id * 3 + 1] - y;
    const dz = world.grid.dimensions === 3 ? world.pos[id * 3 + 2] - z : 0;
    if (dx * dx + dy * dy + dz * dz <= r * r) found.push(id);
  }
  return found.sort((a, b) => a - b);
}

function gridQuery(grid: SpatialGrid, x: number, y: number, z: number, r: number): number[] {
  const found: number[] = [];
  grid.query(x, y, z, r, (id, d2) => {
    assert.ok(d2 <= r * r);
    found.push(id);
  });
  const sorted = found.sort((a, b) => a - b);
  assert.equal(new Set(sorted).size, sorted.length, 'an entity was visited twice');
  return sorted;
}

function randomWorldRun(dimensions: 2 | 3, seed: number): void {
  const next = prng(seed);
  const capacity = 50 + Math.floor(next() * 400);
  const size = 100 + next() * 900;
  const cellSize = size * (0.01 + next() * 0.3);
  const min = dimensions === 3 ? [-size / 2, -size / 2, -size / 4] : [-size / 2, -size / 2];
  const max = dimensions === 3 ? [size / 2, size / 2, size / 4] : [size / 2, size / 2];
  const grid = new SpatialGrid({ capacity, min, max, cellSize });
  const world: World = { grid, present: new Set(), pos: new Float64Array(capacity * 3) };
  // Positions up to 20% beyond the bounds, to exercise the clamping into edge cells.
  const coordinate = (axis: number) => min[axis] * 1.2 + next() * (max[axis] - min[axis]) * 1.2;
  const place = (id: number, near: boolean) => {
    for (let axis = 0; axis < dimensions; axis++) {
      // Small steps (likely the same cell) or jumps anywhere.
      world.pos[id * 3 + axis] = near
        ? world.pos[id * 3 + axis] + (next() - 0.5) * cellSize * 0.5
        : coordinate(axis);
    }
  };
  for (let step = 0; step < 600; step++) {
    const id = Math.floor(next() * capacity);
    const roll = next();
    if (!world.present.has(id)) {
      place(id, false);
      grid.insert(id, world.pos[id * 3], world.pos[id * 3 + 1], world.pos[id * 3 + 2]);
      world.present.add(id);
    } else if (roll < 0.1) {
      grid.remove(id);
      world.present.delete(id);
    } else {
      place(id, roll < 0.7);
      grid.move(id, world.pos[id * 3], world.pos[id * 3 + 1], world.pos[id * 3 + 2]);
    }
    assert.equal(grid.size, world.present.size);
    if (step % 50 === 25) {
      // Everything walks at once, through moveAll (stride 3, or a packed stride-2 copy in 2D).
      for (const id of world.present) place(id, next() < 0.8);
      if (dimensions === 2 && next() < 0.5) {
        const packed = new Float64Array(capacity * 2);
        for (let id = 0; id < capacity; id++) packed.set(world.pos.subarray(id * 3, id * 3 + 2), id * 2);
        grid.moveAll(packed, 2);
      } else grid.moveAll(world.pos);
    }
    if (step % 10 === 0) {
      const x = coordinate(0);
      const y = coordinate(1);
      const z = dimensions === 3 ? coordinate(2) : 0;
      const r = next() < 0.1 ? size * 2 : 0.5 + next() * size * 0.4;
      assert.deepEqual(gridQuery(grid, x, y, z, r), bruteForce(world, x, y, z, r));
    }
  }
}

describe('SpatialGrid', () => {
  it('2D: queries equal brute force over random inserts, moves and removals (200 worlds)', () => {
    for (let run = 0; run < 200; run++) randomWorldRun(2, SEED + run);
  });

  it('3D: queries equal brute force over random inserts, moves and removals (200 worlds)', () => {
    for (let run = 0; run < 200; run++) randomWorldRun(3, SEED + 1000 + run);
  });

  it('crowded cells (many chunks) and sparse ones (a chunk each, the pool grows) stay exact', () => {
    const next = prng(SEED + 7);
    for (const [cellSize, spread] of [
      [1, 1000], // 1,000 entities in distinct cells: the chunk pool must grow
      [500, 100], // 1,000 entities in one or two cells: long chunk chains
    ]) {
      const grid = new SpatialGrid({ capacity: 1000, min: [0, 0], max: [1000, 1000], cellSize });
      const world: World = { grid, present: new Set(), pos: new Float64Array(3000) };
      for (let id = 0; id < 1000; id++) {
        world.pos[id * 3] = next() * spread;
        world.pos[id * 3 + 1] = next() * spread;
        grid.insert(id, world.pos[id * 3], world.pos[id * 3 + 1]);
        world.present.add(id);
      }
      for (let id = 0; id < 1000; id += 3) {
        grid.remove(id);
        world.present.delete(id);
      }
      for (let k = 0; k < 20; k++) {
        const [x, y, r] = [next() * spread, next() * spread, 1 + next() * spread * 0.3];
        assert.deepEqual(gridQuery(grid, x, y, 0, r), bruteForce(world, x, y, 0, r));
      }
    }
  });

  it('a query includes an entity exactly at the radius and excludes one just beyond', () => {
    const grid = new SpatialGrid({ capacity: 4, min: [0, 0], max: [100, 100], cellSize: 10 });
    grid.insert(0, 50, 50);
    grid.insert(1, 80, 50);
    grid.insert(2, 80.001, 50);
    assert.deepEqual(gridQuery(grid, 50, 50, 0, 30), [0, 1]);
  });

  it('in 2D, z is ignored', () => {
    const grid = new SpatialGrid({ capacity: 2, min: [0, 0], max: [10, 10], cellSize: 1 });
    grid.insert(0, 5, 5, 1000);
    assert.deepEqual(gridQuery(grid, 5, 5, -1000, 0.1), [0]);
    assert.equal(grid.positions[2], 0);
  });

  it('entities outside the bounds keep exact positions and are found by queries outside too', () => {
    const grid = new SpatialGrid({ capacity: 3, min: [0, 0, 0], max: [10, 10, 10], cellSize: 2 });
    grid.insert(0, -500, 5, 5);
    grid.insert(1, 1e9, -1e9, 3);
    assert.deepEqual(gridQuery(grid, -501, 5, 5, 1.5), [0]);
    assert.deepEqual(gridQuery(grid, 5, 5, 5, 10), []);
    assert.deepEqual(gridQuery(grid, 1e9, -1e9, 3, 1), [1]);
  });

  it('misuse throws at the call, naming the argument', () => {
    const grid = new SpatialGrid({ capacity: 4, min: [0, 0], max: [10, 10], cellSize: 1 });
    assert.throws(() => grid.insert(4, 0, 0), /id must be an integer in \[0, 3\]/);
    assert.throws(() => grid.insert(-1, 0, 0), /id/);
    assert.throws(() => grid.insert(0, Number.NaN, 0), /x must be a finite number/);
    assert.throws(() => grid.insert(0, 0, Number.POSITIVE_INFINITY), /y must be a finite number/);
    grid.insert(0, 1, 1);
    assert.throws(() => grid.insert(0, 1, 1), /already in the grid/);
    assert.throws(() => grid.move(1, 1, 1), /not in the grid/);
    assert.throws(() => grid.move(0, 1, Number.NaN), /y must be a finite/);
    assert.deepEqual([grid.positions[0], grid.positions[1]], [1, 1], 'a refused move changes nothing');
    assert.throws(() => grid.remove(2), /not in the grid/);
    const positions = new Float64Array(12).fill(7);
    positions[1] = Number.NaN;
    assert.throws(() => grid.moveAll(positions), /positions\[1\] \(entity 0\) must be finite/);
    positions[1] = 7;
    positions[10] = Number.POSITIVE_INFINITY; // entity 3 is not in the grid, but still checked
    assert.throws(() => grid.moveAll(positions), /positions\[10\]/);
    assert.deepEqual([grid.positions[0], grid.positions[1]], [1, 1], 'a refused moveAll moves nothing');
    assert.throws(() => grid.moveAll(positions, 3, 5), /count must be/);
    assert.throws(() => grid.moveAll(new Float64Array(6)), /count must be/);
    assert.throws(() => grid.move(0, 1, 1, Number.NaN), /z must be a finite/);
    assert.throws(() => grid.query(0, 0, 0, 0, () => {}), /radius must be a finite number > 0/);
    assert.throws(() => grid.query(0, 0, 0, -1, () => {}), /radius/);
    assert.throws(() => grid.query(Number.NaN, 0, 0, 1, () => {}), /x must be/);
    assert.throws(
      () => new SpatialGrid({ capacity: 4, min: [0, 0], max: [10, 10], cellSize: 0 }),
      /cellSize/,
    );
    assert.throws(() => new SpatialGrid({ capacity: 4, min: [0, 0], max: [0, 10], cellSize: 1 }), /max\[0\]/);
    assert.throws(() => new SpatialGrid({ capacity: 4, min: [0], max: [1], cellSize: 1 }), /\[x, y\]/);
    assert.throws(
      () => new SpatialGrid({ capacity: 4, min: [0, 0], max: [1e6, 1e6], cellSize: 1 }),
      /larger cellSize/,
    );
  });
});
