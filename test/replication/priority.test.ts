/**
 * PriorityAccumulator + PrioritySelection: entities are offered in descending priority, packets
 * never exceed their budget, nothing starves (the longest wait stays within a derived bound),
 * more important entities go out more often, and leaving relevancy drops the priority.
 *
 * The starvation bound. Let every tick send at least k entities from the top of the order (a
 * budget of B bits with entities of at most S bits guarantees k = floor(B / S): while S bits
 * remain everything offered fits), and let each relevant entity gain between wMin and wMax per
 * tick (ρ = wMax / wMin). Suppose entity e is not sent for T ticks. In each of the last T/2 of
 * them, its priority is above (T/2)·wMin, and the k entities sent before it had at least as
 * much; gaining that much takes another entity at least (T/2)·wMin / wMax ticks after each of
 * its sends, so each of the other n − 1 entities is sent at most ρ + 1 times in that half. So
 * k·T/2 ≤ (n − 1)(ρ + 1), and T ≤ 2(n − 1)(ρ + 1) / k. With equal weights the order is
 * round-robin and the wait is at most ceil(n / k) ticks.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prng } from '../../src/random/prng.js';
import { InterestManager } from '../../src/replication/interest.js';
import type { InterestView } from '../../src/replication/interest-view.js';
import { type Importance, PriorityAccumulator } from '../../src/replication/priority.js';
import { PrioritySelection } from '../../src/replication/priority-selection.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('priority tests');

/** A world of n static entities around a view at the origin. */
function world(n: number, next: () => number, importance?: Importance) {
  const interest = new InterestManager({
    world: { capacity: n, min: [-200, -200], max: [200, 200], cellSize: 25 },
    maxClients: 1,
  });
  const view = interest.addView(0, { enterRadius: 150 });
  for (let id = 0; id < n; id++) {
    const d = next() * 149;
    const angle = next() * 2 * Math.PI;
    interest.addEntity(id, d * Math.cos(angle), d * Math.sin(angle));
  }
  interest.update();
  assert.equal(view.count, n);
  const priority = new PriorityAccumulator(interest, importance ? { importance } : {});
  return { interest, view, priority };
}

/** One tick: accumulate, then fill a packet of `budgetBits`; returns the ids sent. */
function tick(
  priority: PriorityAccumulator,
  view: InterestView,
  selection: PrioritySelection,
  budgetBits: number,
  bitsOf: (id: number) => number,
): number[] {
  priority.accumulate(view);
  const sent: number[] = [];
  let used = 0;
  let last = Number.POSITIVE_INFINITY;
  selection.begin(view, budgetBits);
  for (let id = selection.next(); id >= 0; id = selection.next()) {
    const p = view.priority[view.slotOf(id)];
    assert.ok(p <= last, 'offered in descending priority');
    last = p;
    const bits = bitsOf(id);
    const fits = used + bits <= budgetBits;
    assert.equal(selection.take(bits), fits, 'take accepts exactly what fits');
    if (fits) {
      used += bits;
      sent.push(id);
      assert.equal(view.priority[view.slotOf(id)], 0, 'a sent entity restarts from 0');
    }
  }
  assert.ok(used <= budgetBits, 'the budget is never exceeded');
  assert.equal(selection.usedBits, used);
  return sent;
}

describe('priority accumulator and selection', () => {
  it('under a tight budget every entity is sent within the derived bound (100 worlds)', () => {
    const next = prng(SEED);
    for (let run = 0; run < 100; run++) {
      const n = 10 + Math.floor(next() * 150);
      const { view, priority } = world(n, next);
      const bases: number[] = [];
      for (let id = 0; id < n; id++) {
        bases.push(0.5 + next() * 1.5);
        priority.setBase(id, bases[id]);
      }
      const maxBits = 20 + Math.floor(next() * 200);
      const sizes = Array.from({ length: n }, () => 1 + Math.floor(next() * maxBits));
      const k = 1 + Math.floor(next() * Math.min(10, n / 2));
      const budget = k * maxBits;
      // Per-tick gains, as the accumulator computes them (entities are static).
      priority.accumulate(view);
      const gains = Array.from({ length: n }, (_, id) => view.priority[view.slotOf(id)]);
      view.priority.fill(0);
      const rho = Math.max(...gains) / Math.min(...gains);
      const bound = (2 * (n - 1) * (rho + 1)) / k;
      const unsent = new Array(n).fill(0);
      let longest = 0;
      const selection = new PrioritySelection();
      for (let t = 0; t < Math.ceil(bound * 3) + 20; t++) {
        const sent = new Set(tick(priority, view, selection, budget, (id) => sizes[id]));
        assert.ok(sent.size >= Math.min(k, n), `at least k = ${k} sent per tick`);
        for (let id = 0; id < n; id++) {
          unsent[id] = sent.has(id) ? 0 : unsent[id] + 1;
          longest = Math.max(longest, unsent[id]);
        }
      }
      assert.ok(longest <= bound, `run ${run}: waited ${longest} ticks, bound ${bound.toFixed(1)}`);
    }
  });

  it('with equal weights it is round-robin: nothing waits more than ceil(n / k) ticks', () => {
    const next = prng(SEED + 1);
    for (let run = 0; run < 50; run++) {
      const n = 5 + Math.floor(next() * 200);
      const k = 1 + Math.floor(next() * 20);
      const { view, priority } = world(n, next, () => 1);
      const lastSent = new Array(n).fill(-1);
      const selection = new PrioritySelection();
      for (let t = 0; t < 3 * Math.ceil(n / k) + 5; t++) {
        for (const id of tick(priority, view, selection, k * 8, () => 8)) {
          assert.ok(t - lastSent[id] <= Math.ceil(n / k), `run ${run}: ${id} waited ${t - lastSent[id]}`);
          lastSent[id] = t;
        }
        for (let id = 0; id < n; id++) assert.ok(t - lastSent[id] <= Math.ceil(n / k));
      }
    }
  });

  it('higher importance is sent more often: base ×3 and nearness (default importance)', () => {
    const next = prng(SEED + 2);
    const n = 120;
    const { interest, view, priority } = world(n, next);
    for (let id = 0; id < n; id++) {
      priority.setBase(id, id % 2 === 0 ? 3 : 1);
      // Half near (≤ 20), half far (≥ 120), independent of the base.
      const d = Math.floor(id / 2) % 2 === 0 ? 5 + next() * 15 : 120 + next() * 25;
      interest.moveEntity(id, d, 0);
    }
    interest.update();
    const sends = new Array(n).fill(0);
    const selection = new PrioritySelection();
    for (let t = 0; t < 2000; t++) for (const id of tick(priority, view, selection, 80, () => 8)) sends[id]++;
    const mean = (pick: (id: number) => boolean) => {
      const ids = sends.map((_, id) => id).filter(pick);
      return ids.reduce((sum, id) => sum + sends[id], 0) / ids.length;
    };
    const heavy = mean((id) => id % 2 === 0);
    const light = mean((id) => id % 2 === 1);
    const near = mean((id) => Math.floor(id / 2) % 2 === 0);
    const far = mean((id) => Math.floor(id / 2) % 2 === 1);
    assert.ok(heavy > 2 * light, `base 3 sent ${heavy} times vs base 1 ${light}`);
    assert.ok(near > 2 * far, `near sent ${near} times vs far ${far}`);
    assert.ok(Math.min(...sends) > 0, 'everything was sent');
  });

  it('stops after maxMisfits refusals and keeps the refused priorities', () => {
    const next = prng(SEED + 3);
    const { view, priority } = world(40, next, () => 1);
    priority.accumulate(view);
    const selection = new PrioritySelection(3);
    selection.begin(view, 100);
    let offered = 0;
    for (let id = selection.next(); id >= 0; id = selection.next()) {
      offered++;
      assert.equal(selection.take(1000), false);
    }
    assert.equal(offered, 3);
    assert.equal(selection.misfits, 3);
    for (let slot = 0; slot < view.count; slot++) assert.equal(view.priority[slot], 1);
    // skip() is not a misfit: every entity is offered.
    selection.begin(view, 100);
    offered = 0;
    for (let id = selection.next(); id >= 0; id = selection.next()) {
      offered++;
      selection.skip();
    }
    assert.equal(offered, 40);
  });

  it('an entity that leaves relevancy drops its priority; entering again starts from 0', () => {
    const next = prng(SEED + 4);
    const { interest, view, priority } = world(10, next, () => 1);
    for (let t = 0; t < 5; t++) priority.accumulate(view);
    interest.moveEntity(3, 190, 190);
    interest.update();
    assert.equal(view.has(3), false);
    for (let slot = 0; slot < view.count; slot++) assert.equal(view.priority[slot], 5, 'others keep theirs');
    interest.moveEntity(3, 1, 1);
    interest.update();
    assert.equal(view.priority[view.slotOf(3)], 0);
    priority.accumulate(view);
    assert.equal(view.priority[view.slotOf(3)], 1);
  });

  it('misuse throws at the call', () => {
    const next = prng(SEED + 5);
    const { view, priority } = world(3, next);
    assert.throws(() => priority.setBase(3, 1), /id must be/);
    assert.throws(() => priority.setBase(0, Number.NaN), /base must be a finite number >= 0/);
    assert.throws(() => priority.setBase(0, -1), /base/);
    const selection = new PrioritySelection();
    assert.throws(() => selection.take(1), /no entity is offered/);
    assert.throws(() => selection.begin(view, Number.NaN), /budgetBits/);
    selection.begin(view, 10);
    selection.next();
    assert.throws(() => selection.take(-1), /bits must be/);
    const bad = world(3, next, () => Number.NaN);
    assert.throws(() => bad.priority.accumulate(bad.view), /importance returned NaN/);
    assert.throws(() => new PrioritySelection(-1), /maxMisfits/);
  });
});
