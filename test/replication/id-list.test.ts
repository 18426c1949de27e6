import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prng } from '../../src/random/prng.js';
import { IdList } from '../../src/replication/id-list.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('id list tests');

describe('IdList', () => {
  it('sort() orders the live entries ascending, as Array sort does, and leaves the rest alone', () => {
    const next = prng(SEED);
    for (let round = 0; round < 300; round++) {
      const list = new IdList(4);
      const n = Math.floor(next() * (round < 200 ? 40 : 3000));
      const ids: number[] = [];
      for (let i = 0; i < n; i++) {
        const id = Math.floor(next() * (round % 2 === 0 ? 10 : 65536));
        ids.push(id);
        list.push(id);
      }
      const stale = list.items.length > n ? list.items[n] : undefined;
      list.sort();
      assert.deepEqual(
        list.toArray(),
        ids.sort((a, b) => a - b),
        `round ${round}, ${n} ids`,
      );
      if (stale !== undefined) assert.equal(list.items[n], stale);
    }
  });
});
