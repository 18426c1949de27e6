/**
 * ZoneMap (memo B2): cells to zones, one zone per point, distances and border bands against a
 * brute-force scan of every cell, neighbours, and versioned cell moves.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prng, randomInt } from '../../src/random/prng.js';
import { ZoneMap } from '../../src/zones/zone-map.js';
import { MAX_ZONES, type ZoneMapDescription, zoneMapProblem } from '../../src/zones/zone-map-description.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('zone map');

/** A random map: random bounds, 1-12 x 1-12 cells, 1-6 zones scattered or in blocks. */
function randomMap(next: () => number): ZoneMap {
  const columns = 1 + randomInt(next, 12);
  const rows = 1 + randomInt(next, 12);
  const minX = (next() - 0.5) * 1000;
  const minY = (next() - 0.5) * 1000;
  const maxX = minX + 1 + next() * 500;
  const maxY = minY + 1 + next() * 500;
  const zones = 1 + randomInt(next, 6);
  const scattered = next() < 0.5;
  const cellZones = Array.from({ length: columns * rows }, (_, i) =>
    scattered ? randomInt(next, zones) : Math.floor(((i % columns) * zones) / columns),
  );
  return new ZoneMap({ minX, minY, maxX, maxY, columns, rows, cellZones });
}

/** Brute force, from the description alone: distance from (x, y) clamped to every cell of `zone`. */
function bruteDistance(map: ZoneMap, zone: number, x: number, y: number): number {
  const d = map.describe();
  const cw = (d.maxX - d.minX) / d.columns;
  const ch = (d.maxY - d.minY) / d.rows;
  const px = Math.min(Math.max(x, d.minX), d.maxX);
  const py = Math.min(Math.max(y, d.minY), d.maxY);
  let best = Number.POSITIVE_INFINITY;
  for (let cell = 0; cell < d.cellZones.length; cell++) {
    if (d.cellZones[cell] !== zone) continue;
    const col = cell % d.columns;
    const row = Math.floor(cell / d.columns);
    // Edges at min + i x size, the last one at max exactly (as the map documents).
    const x1 = col + 1 === d.columns ? d.maxX : d.minX + (col + 1) * cw;
    const y1 = row + 1 === d.rows ? d.maxY : d.minY + (row + 1) * ch;
    const dx = Math.max(d.minX + col * cw - px, 0, px - x1);
    const dy = Math.max(d.minY + row * ch - py, 0, py - y1);
    best = Math.min(best, Math.hypot(dx, dy));
  }
  return best;
}

/** A point in or around the bounds; one in four on a cell edge, one in eight outside. */
function randomPoint(map: ZoneMap, next: () => number): [number, number] {
  const w = map.maxX - map.minX;
  const h = map.maxY - map.minY;
  let x = map.minX + (next() * 1.25 - 0.125) * w;
  let y = map.minY + (next() * 1.25 - 0.125) * h;
  if (next() < 0.25) x = map.minX + randomInt(next, map.columns + 1) * map.cellWidth;
  if (next() < 0.25) y = map.minY + randomInt(next, map.rows + 1) * map.cellHeight;
  return [x, y];
}

const NEAR = 1e-9;

describe('ZoneMap', () => {
  it('a 2x2 grid of zones: zoneAt is half-open inside, clamps outside, and edges touch both sides', () => {
    const map = ZoneMap.grid({ minX: 0, minY: 0, maxX: 100, maxY: 100 }, 4, 4, 2, 2);
    assert.equal(map.zoneCount, 4);
    assert.equal(map.mapVersion, 0);
    assert.deepEqual(
      [map.zoneAt(10, 10), map.zoneAt(60, 10), map.zoneAt(10, 60), map.zoneAt(60, 60)],
      [0, 1, 2, 3],
    );
    assert.equal(map.zoneAt(50, 50), 3, 'a grid corner belongs to the cell above and to the right');
    assert.equal(map.zoneAt(49.999, 50), 2);
    assert.equal(map.zoneAt(100, 100), 3, 'the far edge belongs to the last cell');
    assert.equal(map.zoneAt(-1e9, -5), 0, 'outside the bounds: the nearest cell');
    assert.equal(map.zoneAt(1e9, -5), 1);
    assert.deepEqual(map.zonesTouching(50, 50), [0, 1, 2, 3]);
    assert.deepEqual(map.zonesTouching(50, 10), [0, 1]);
    assert.deepEqual(map.zonesTouching(25, 25), [0], 'an edge between two cells of one zone is inside it');
    assert.equal(map.distanceToZone(3, 40, 40), Math.hypot(10, 10));
    assert.equal(map.distanceToZone(1, -30, 10), 50, 'measured from the clamped point (0, 10)');
    assert.equal(map.cellCount(0), 4);
    assert.equal(map.cellCount(7), 0);
    assert.equal(map.distanceToZone(7, 1, 1), Number.POSITIVE_INFINITY, 'a zone with no cell is nowhere');
  });

  it('border bands: the zones that need a proxy of an entity, owner excluded', () => {
    const map = ZoneMap.grid({ minX: 0, minY: 0, maxX: 100, maxY: 100 }, 4, 4, 2, 2);
    assert.deepEqual(map.proxyZones(0, 45, 45, 4), []);
    assert.deepEqual(map.proxyZones(0, 47, 45, 4), [1]);
    assert.deepEqual(map.proxyZones(0, 47, 47, 4), [1, 2], 'the diagonal zone is sqrt(18) > 4 away');
    assert.deepEqual(map.proxyZones(0, 47, 47, 5), [1, 2, 3]);
    assert.deepEqual(map.proxyZones(0, 51, 10, 4), [1], 'owned by 0 while inside 1 (hysteresis): 1 needs it');
    assert.ok(map.isWithin(1, 47, 45, 3) && !map.isWithin(1, 47, 45, 2.9));
    const out = [9, 9, 9];
    assert.equal(map.proxyZones(3, 50, 50, 0, out), out, 'writes into the array it is given');
    assert.deepEqual(out, [0, 1, 2]);
  });

  it('random maps: one zone per point, distances and bands match a brute-force scan of every cell', () => {
    const next = prng(SEED);
    const out: number[] = [];
    for (let m = 0; m < 60; m++) {
      const map = randomMap(next);
      const zones = map.zoneCount;
      for (let p = 0; p < 200; p++) {
        const [x, y] = randomPoint(map, next);
        const distances = Array.from({ length: zones }, (_, z) => bruteDistance(map, z, x, y));
        const at = map.zoneAt(x, y);
        assert.ok(distances[at] <= NEAR, `(${x}, ${y}) is in zone ${at}'s cells`);
        const touching = map.zonesTouching(x, y);
        assert.ok(touching.includes(at));
        assert.deepEqual(
          touching,
          distances.flatMap((d, z) => (d === 0 ? [z] : [])),
          `zones touching (${x}, ${y})`,
        );
        for (let z = 0; z < zones; z++) {
          const got = map.distanceToZone(z, x, y);
          const want = distances[z];
          // Infinity for a zone index below zoneCount that owns no cell.
          assert.ok(
            got === want || Math.abs(got - want) <= NEAR * (1 + want),
            `zone ${z}: ${got} vs ${want}`,
          );
        }
        const radius = next() < 0.1 ? 0 : next() * 2 * Math.max(map.cellWidth, map.cellHeight);
        const owner = randomInt(next, zones);
        map.proxyZones(owner, x, y, radius, out);
        const expected = distances.flatMap((d, z) => (z !== owner && d <= radius ? [z] : []));
        // Only a distance within rounding of the radius itself may come out either way.
        const disagree = [...new Set([...out, ...expected])].filter(
          (z) => out.includes(z) !== expected.includes(z),
        );
        for (const z of disagree)
          assert.ok(Math.abs(distances[z] - radius) <= NEAR, `zone ${z} at ${distances[z]}, r ${radius}`);
        assert.deepEqual(
          out,
          [...out].sort((a, b) => a - b),
        );
        for (const z of expected) assert.equal(map.isWithin(z, x, y, radius) || disagree.includes(z), true);
      }
    }
  });

  it("neighbours and zonesNear match the cell pairs, and every zone is its neighbours' neighbour", () => {
    const next = prng((SEED ^ 1) >>> 0);
    for (let m = 0; m < 40; m++) {
      const map = randomMap(next);
      const d = map.describe();
      const gap = (a: number, b: number): number => {
        const dc = Math.max(0, Math.abs((a % d.columns) - (b % d.columns)) - 1);
        const dr = Math.max(0, Math.abs(Math.floor(a / d.columns) - Math.floor(b / d.columns)) - 1);
        return Math.hypot(dc * map.cellWidth, dr * map.cellHeight);
      };
      const radius = next() < 0.3 ? 0 : next() * 3 * map.cellWidth;
      for (let z = 0; z < map.zoneCount; z++) {
        const near = new Set<number>();
        const touch = new Set<number>();
        for (let a = 0; a < d.cellZones.length; a++) {
          if (d.cellZones[a] !== z) continue;
          for (let b = 0; b < d.cellZones.length; b++) {
            const other = d.cellZones[b];
            if (other === z) continue;
            if (gap(a, b) === 0) touch.add(other);
            if (gap(a, b) <= radius) near.add(other);
          }
        }
        assert.deepEqual(
          map.neighbours(z),
          [...touch].sort((a, b) => a - b),
        );
        assert.deepEqual(
          map.zonesNear(z, radius),
          [...near].sort((a, b) => a - b),
        );
        for (const n of map.neighbours(z)) assert.ok(map.neighbours(n).includes(z));
      }
    }
  });

  it('moveCells splits a zone: the version bumps once per change, neighbours follow, bad input changes nothing', () => {
    const map = ZoneMap.grid({ minX: 0, minY: 0, maxX: 80, maxY: 40 }, 8, 4, 2, 1);
    assert.deepEqual(map.neighbours(0), [1]);
    // Split zone 1 (columns 4-7) along x: columns 6-7 become zone 2.
    const right = map.cellsOf(1).filter((cell) => cell % 8 >= 6);
    assert.deepEqual(right, [6, 7, 14, 15, 22, 23, 30, 31]);
    assert.equal(map.moveCells(right, 2), 8);
    assert.equal(map.mapVersion, 1);
    assert.deepEqual(
      [map.zoneAt(55, 5), map.zoneAt(65, 5), map.cellCount(1), map.cellCount(2)],
      [1, 2, 8, 8],
    );
    assert.deepEqual(map.neighbours(0), [1], 'the cache was dropped with the old version');
    assert.deepEqual(map.neighbours(1), [0, 2]);
    assert.equal(map.moveCells(right, 2), 0, 'no change');
    assert.equal(map.mapVersion, 1, 'no change, no new version');
    assert.throws(() => map.moveCells([0, 32], 1), /cell 32/);
    assert.throws(() => map.moveCells([0], MAX_ZONES), RangeError);
    assert.equal(map.zoneAt(5, 5), 0, 'a rejected move moved nothing');
    assert.equal(map.mapVersion, 1);
    // Merge back: zone 2 owns nothing and is no one's neighbour.
    assert.equal(map.moveCells(right, 1), 8);
    assert.deepEqual([map.mapVersion, map.cellCount(2), map.zoneCount, map.cellsOf(2)], [2, 0, 2, []]);
    assert.deepEqual(map.neighbours(1), [0]);
    assert.deepEqual(map.neighbours(2), []);
    const copy = new ZoneMap(map.describe());
    assert.deepEqual(copy.describe(), map.describe(), 'describe() round-trips, version included');
  });

  it('descriptions from the bus are checked with a reason, never a throw; the constructor throws that reason', () => {
    const good: ZoneMapDescription = {
      minX: 0,
      minY: 0,
      maxX: 10,
      maxY: 10,
      columns: 2,
      rows: 1,
      cellZones: [0, 1],
    };
    assert.equal(zoneMapProblem(good), null);
    const bad: [unknown, RegExp][] = [
      [null, /not an object/],
      ['map', /not an object/],
      [{ ...good, minX: Number.NaN }, /minX/],
      [{ ...good, maxY: '10' }, /maxY/],
      [{ ...good, maxX: 0 }, /empty/],
      [{ ...good, minX: -1e308, maxX: 1e308 }, /finite, non-zero size/],
      [{ ...good, minX: 0, maxX: 5e-324, columns: 2 }, /finite, non-zero size/],
      [{ ...good, columns: 0 }, /columns/],
      [{ ...good, columns: 1.5 }, /columns/],
      [{ ...good, columns: 65_536, rows: 2, cellZones: [] }, /more than/],
      [{ ...good, cellZones: [0] }, /cellZones/],
      [{ ...good, cellZones: undefined }, /cellZones/],
      [{ ...good, cellZones: [0, 256] }, /cell 1/],
      [{ ...good, cellZones: [0, Number.NaN] }, /cell 1/],
      [{ ...good, mapVersion: -1 }, /mapVersion/],
    ];
    for (const [description, reason] of bad) {
      assert.match(String(zoneMapProblem(description as ZoneMapDescription)), reason);
      assert.throws(() => new ZoneMap(description as ZoneMapDescription), reason);
    }
  });

  it("misuse throws at the call: non-finite positions, bad zones, bad radii, grids that don't fit", () => {
    const map = ZoneMap.grid({ minX: 0, minY: 0, maxX: 10, maxY: 10 }, 2, 2, 2, 1);
    assert.throws(() => map.zoneAt(Number.NaN, 0), RangeError);
    assert.throws(() => map.proxyZones(0, 1, Number.POSITIVE_INFINITY, 1), RangeError);
    assert.throws(() => map.proxyZones(0, 1, 1, -1), RangeError);
    assert.throws(() => map.proxyZones(0.5, 1, 1, 1), RangeError);
    assert.throws(() => map.isWithin(0, 1, 1, Number.NaN), RangeError);
    assert.throws(() => map.neighbours(-1), RangeError);
    assert.throws(() => map.zonesNear(0, Number.POSITIVE_INFINITY), RangeError);
    assert.throws(() => map.zoneOfCell(4), RangeError);
    assert.throws(() => ZoneMap.grid({ minX: 0, minY: 0, maxX: 1, maxY: 1 }, 2, 2, 3, 1), RangeError);
    assert.throws(() => ZoneMap.grid({ minX: 0, minY: 0, maxX: 1, maxY: 1 }, 32, 32, 32, 32), /1024 zones/);
  });
});
