/** PlayerRate: a burst, then one token per refill period, and a map that never outgrows its bound. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { PlayerRate } from '../../src/services/gamer/social/player-rate.js';

it('gives the burst, then asks to wait until a token refills', () => {
  const rate = new PlayerRate(3, 60); // one a second after the burst
  assert.deepEqual(
    [0, 1, 2, 3].map(() => rate.take('a', 1000)),
    [0, 0, 0, 1],
  );
  assert.equal(rate.take('b', 1000), 0, 'each player has its own bucket');
  assert.equal(rate.take('a', 1500), 1);
  assert.equal(rate.take('a', 2600), 0);
  assert.equal(rate.take('a', 2600), 1);
});

it('keeps at most maxPlayers buckets under a flood of new players', () => {
  const rate = new PlayerRate(2, 1, 50);
  for (let i = 0; i < 5000; i++) rate.take(`p${i}`, 1000 + (i % 7));
  assert.ok(rate.size <= 50, `size ${rate.size}`);
  // An emptied bucket kept while others come: the most recent players are the ones kept.
  rate.take('hot', 2000);
  rate.take('hot', 2000);
  assert.ok(rate.take('hot', 2000) > 0);
});
