/**
 * GhostPlan: the planned updates come out in ascending id order (the wire's), whether sorted
 * through its bitset (dense ids) or by comparisons (sparse), with each update's ghost slot kept;
 * the bitset is left clear for the next plan.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prng } from '../../src/random/prng.js';
import { GhostPlan } from '../../src/replication/ghost-plan.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('ghost plan tests');

describe('GhostPlan', () => {
  it('sortUpdates() orders distinct ids ascending, dense or sparse, plan after plan', () => {
    const next = prng(SEED);
    const capacity = 10_000;
    const plan = new GhostPlan(capacity);
    for (let round = 0; round < 400; round++) {
      plan.clear(null as never);
      // Dense: ~74 of 10,000 (the bitset); sparse: a few ids far apart (comparisons); tiny spans.
      const span = round % 3 === 0 ? capacity : round % 3 === 1 ? 40 : capacity;
      const n = round % 3 === 2 ? 1 + Math.floor(next() * 4) : Math.floor(next() * Math.min(span, 200));
      const chosen = new Set<number>();
      while (chosen.size < n) chosen.add(Math.floor(next() * span));
      for (const id of chosen) plan.addUpdate(id, id ^ 0x55);
      plan.sortUpdates();
      const expected = [...chosen].sort((a, b) => a - b);
      assert.deepEqual(plan.updates.toArray(), expected, `round ${round}`);
      for (const id of expected) assert.equal(plan.updateSlots[id], id ^ 0x55);
    }
  });
});
