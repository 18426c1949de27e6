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

  it("trim() gives back a burst's room once the entries use an eighth of it, keeping them", () => {
    const list = new IdList();
    for (let id = 0; id < 300; id++) list.push(id);
    const burst = list.items.length;
    assert.ok(burst >= 300);
    list.trim(); // full: kept
    assert.equal(list.items.length, burst);
    list.clear();
    for (let id = 0; id < 40; id++) list.push(id * 3); // 40 of 512 < an eighth
    list.trim();
    assert.equal(list.items.length, 80);
    assert.deepEqual(
      list.toArray(),
      Array.from({ length: 40 }, (_, i) => i * 3),
    );
    list.clear();
    list.push(7);
    list.trim(); // down to the floor, no smaller: a list that stays small never reallocates
    assert.equal(list.items.length, 16);
    list.trim();
    assert.equal(list.items.length, 16);
    assert.deepEqual(list.toArray(), [7]);
    const small = new IdList();
    small.push(1);
    small.trim();
    assert.equal(small.items.length, 16);
  });
});
