/**
 * The zoned demo's grid (demo/zone-grid.ts): N zones cut the arena into the most square grid,
 * the borders drawn are the inner edges, and the page reads GET /zones' answer cheaply, taking
 * anything but a grid (the plain demo's null, a malformed answer) as no zones.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type DemoZoneGrid, demoZoneGrid, readZoneGrid, zoneBorders } from '../../demo/zone-grid.js';

describe('the zoned demo grid', () => {
  it('cuts N zones into the most square grid, wider than tall', () => {
    const shapes = Object.fromEntries(
      Array.from({ length: 16 }, (_, i) => {
        const { columns, rows } = demoZoneGrid(i + 1);
        return [i + 1, `${columns}x${rows}`];
      }),
    );
    assert.deepEqual(shapes, {
      1: '1x1',
      2: '2x1',
      3: '3x1',
      4: '2x2',
      5: '5x1',
      6: '3x2',
      7: '7x1',
      8: '4x2',
      9: '3x3',
      10: '5x2',
      11: '11x1',
      12: '4x3',
      13: '13x1',
      14: '7x2',
      15: '5x3',
      16: '4x4',
    });
    for (const bad of [0, 17, 2.5, Number.NaN]) assert.throws(() => demoZoneGrid(bad), RangeError);
  });

  it('draws the inner borders only: columns - 1 down, rows - 1 across', () => {
    const bounds = { minX: 0, minY: 0, maxX: 64, maxY: 64 };
    assert.deepEqual(zoneBorders({ columns: 2, rows: 2, bounds }), [
      [32, 0, 32, 64],
      [0, 32, 64, 32],
    ]);
    assert.deepEqual(zoneBorders({ columns: 1, rows: 1, bounds }), []);
    assert.equal(zoneBorders({ columns: 3, rows: 2, bounds }).length, 3);
  });

  it('reads a grid from GET /zones, and anything else as no zones', () => {
    const grid: DemoZoneGrid = { columns: 2, rows: 1, bounds: { minX: 0, minY: 0, maxX: 64, maxY: 64 } };
    assert.deepEqual(readZoneGrid(JSON.parse(JSON.stringify(grid))), grid);
    for (const bad of [
      null,
      'zones',
      { columns: 0, rows: 1, bounds: grid.bounds },
      { columns: 2, rows: 1.5, bounds: grid.bounds },
      { columns: 2, rows: 1 },
      { columns: 2, rows: 1, bounds: { ...grid.bounds, maxX: Number.NaN } },
      { columns: 2, rows: 1, bounds: { ...grid.bounds, maxX: -1 } },
    ])
      assert.equal(readZoneGrid(bad), null, JSON.stringify(bad));
  });
});
