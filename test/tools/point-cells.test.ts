import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prng } from '../../src/random/prng.js';
import { PointCells } from '../../tools/point-cells.js';
import { testSeed } from '../support/seed.js';

const seed = testSeed('point-cells');

describe('PointCells', () => {
  it('finds the same first point within a box as a scan of every point, as points move', () => {
    const random = prng(seed);
    const count = 300;
    const size = 50;
    const cells = new PointCells(count, size, 4);
    const px = new Float64Array(count);
    const py = new Float64Array(count);
    // Some points on the edges and on cell borders, the rest anywhere.
    const place = (i: number) => {
      const r = random();
      px[i] = r < 0.1 ? 0 : r < 0.2 ? size : r < 0.3 ? 4 * Math.floor(random() * 13) : random() * size;
      py[i] = random() < 0.2 ? 8 : random() * size;
      cells.place(i, px[i], py[i]);
    };
    for (let i = 0; i < count; i++) place(i);
    let found = 0;
    for (let n = 0; n < 4000; n++) {
      if (random() < 0.5) place(Math.floor(random() * count));
      const x = random() < 0.1 ? 0 : random() * size;
      const y = random() < 0.1 ? size : random() * size;
      const reach = random() < 0.5 ? 1 : 6;
      let scan = -1;
      for (let i = 0; i < count; i++)
        if (Math.abs(px[i] - x) < reach && Math.abs(py[i] - y) < reach) {
          scan = i;
          break;
        }
      assert.equal(cells.firstWithin(x, y, reach, px, py), scan, `at (${x}, ${y}) within ${reach}`);
      if (scan >= 0) found++;
    }
    assert.ok(found > 500, `${found} boxes held a point`);
  });
});
