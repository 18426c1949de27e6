/**
 * The rank index's parts: the skip list against a sorted array under random inserts and deletes,
 * and rank keys whose byte order is the board's order (score, then earliest time, then account).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { prng } from '../../src/random/prng.js';
import { MemoryRankIndex } from '../../src/services/gamer/progress/memory-rank-index.js';
import { OrderStatisticSkipList } from '../../src/services/gamer/progress/order-statistic-skip-list.js';
import { decodeRankKey, encodeRankKey, isRankKey } from '../../src/services/gamer/progress/rank-key.js';
import { testSeed } from '../support/seed.js';

it('the skip list ranks, ranges and deletes as a sorted array does', () => {
  const seed = testSeed('skip list');
  const random = prng(seed);
  const list = new OrderStatisticSkipList(prng((seed ^ 7) >>> 0));
  const reference: string[] = [];
  const lowerBound = (key: string) => {
    let lo = 0;
    let hi = reference.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (reference[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  for (let step = 0; step < 20_000; step++) {
    const key = `k${Math.floor(random() * 3000)}`;
    const at = lowerBound(key);
    const present = reference[at] === key;
    if (random() < 0.6) {
      assert.equal(list.insert(key), !present);
      if (!present) reference.splice(at, 0, key);
    } else {
      assert.equal(list.delete(key), present);
      if (present) reference.splice(at, 1);
    }
    if (step % 97 === 0) {
      assert.equal(list.size, reference.length);
      const probe = `k${Math.floor(random() * 3000)}`;
      const before = lowerBound(probe);
      assert.equal(list.countBefore(probe), before);
      assert.equal(list.countBefore(probe, true), before + (reference[before] === probe ? 1 : 0));
      assert.equal(list.has(probe), reference[before] === probe);
      const start = Math.floor(random() * (reference.length + 2));
      assert.deepEqual(list.range(start, 7), reference.slice(start, start + 7));
      assert.equal(list.at(start), reference[start] ?? null);
    }
  }
  assert.deepEqual(list.range(0, reference.length + 1), reference);
  list.clear();
  assert.equal(list.size, 0);
  assert.deepEqual(list.range(0, 5), []);
});

it('rank keys sort as the board ranks: score by its order, then earliest, then account', () => {
  const seed = testSeed('rank keys');
  const random = prng(seed);
  const specials = [0, -0, 1, -1, 0.5, -0.5, 1e308, -1e308, 5e-324, -5e-324, 2 ** 53, -(2 ** 53)];
  for (const order of ['desc', 'asc'] as const) {
    const records = Array.from({ length: 400 }, (_, i) => ({
      accountId: `p${Math.floor(random() * 50)}`,
      score:
        i < specials.length
          ? specials[i]
          : random() < 0.3
            ? Math.floor(random() * 5)
            : (random() - 0.5) * 10 ** Math.floor(random() * 20),
      atMs: Math.floor(random() * 4) * 1000 + 1_700_000_000_000,
    }));
    const expected = [...records].sort(
      (a, b) =>
        (order === 'desc' ? b.score - a.score : a.score - b.score) ||
        a.atMs - b.atMs ||
        (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : 0),
    );
    const keys = records.map((r) => encodeRankKey(order, r)).sort();
    assert.deepEqual(
      keys.map((k) => decodeRankKey(order, k)),
      expected.map((r) => ({ ...r, score: r.score === 0 ? 0 : r.score })),
    );
    assert.ok(keys.every(isRankKey));
  }
  assert.equal(isRankKey('zz'), false);
  assert.equal(isRankKey(`${'0'.repeat(28)}${'a'.repeat(200)}`), false);
});

it('the memory index keeps each account its best key', async () => {
  const index = new MemoryRankIndex();
  const key = (score: number, atMs: number, accountId: string) =>
    encodeRankKey('desc', { score, atMs, accountId });
  await index.offer('b:0', [
    ['ann', key(5, 10, 'ann')],
    ['bob', key(7, 11, 'bob')],
  ]);
  await index.offer('b:0', [['ann', key(3, 20, 'ann')]]); // worse: kept 5
  await index.offer('b:0', [['cat', key(5, 9, 'cat')]]); // ties ann's 5, reached earlier
  assert.equal(await index.size('b:0'), 3);
  assert.deepEqual(await index.rankOf('b:0', 'ann'), { rank: 2, key: key(5, 10, 'ann') });
  assert.equal((await index.rankOf('b:0', 'cat'))?.rank, 1);
  await index.offer('b:0', [['ann', key(9, 30, 'ann')]]);
  assert.deepEqual(
    (await index.range('b:0', 0, 10)).map((k) => decodeRankKey('desc', k).accountId),
    ['ann', 'bob', 'cat'],
  );
  assert.equal(await index.ready('b:0'), false);
  await index.markReady('b:0');
  assert.equal(await index.ready('b:0'), true);
  await index.drop('b:0');
  assert.equal(await index.ready('b:0'), false);
  assert.equal(await index.rankOf('b:0', 'ann'), null);
});
