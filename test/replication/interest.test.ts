/**
 * InterestManager / InterestView: relevant sets match a brute-force model of the rules (enter
 * radius, leave radius with hysteresis, always-relevant lists, the filter's veto and force) over
 * random worlds, and `entered` / `left` are exactly the difference between consecutive sets.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prng } from '../../src/random/prng.js';
import { InterestManager, type RelevanceFilter } from '../../src/replication/interest-manager.js';
import type { InterestView } from '../../src/replication/interest-view.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('interest tests');

const sorted = (ids: Iterable<number>) => [...ids].sort((a, b) => a - b);
const members = (view: InterestView) => sorted(view.ids.subarray(0, view.count));

/** Vetoes ids sharing the client's residue mod 7; forces multiples of 5 anywhere within the leave radius. */
const testFilter: RelevanceFilter = (view, id, inRange) => {
  if (id % 7 === view.client % 7) return false;
  if (id % 5 === 0) return true;
  return inRange;
};

interface ModelView {
  relevant: Set<number>;
  pendingLeft: number[];
}

function randomRun(seed: number, dimensions: 2 | 3, withFilter: boolean): void {
  const next = prng(seed);
  const capacity = 100 + Math.floor(next() * 300);
  const size = 1000;
  const min = dimensions === 3 ? [0, 0, 0] : [0, 0];
  const max = dimensions === 3 ? [size, size, 200] : [size, size];
  const interest = new InterestManager({
    world: { capacity, min, max, cellSize: 20 + next() * 100 },
    maxClients: 8,
    filter: withFilter ? testFilter : undefined,
  });
  const pos = new Float64Array(capacity * 3);
  const present = new Set<number>();
  const add = (id: number) => {
    pos[id * 3] = next() * size;
    pos[id * 3 + 1] = next() * size;
    pos[id * 3 + 2] = dimensions === 3 ? next() * 200 : 0;
    interest.addEntity(id, pos[id * 3], pos[id * 3 + 1], pos[id * 3 + 2]);
    present.add(id);
  };
  for (let id = 0; id < capacity; id++) if (next() < 0.8) add(id);
  const views: InterestView[] = [];
  const model: ModelView[] = [];
  const clients = 1 + Math.floor(next() * 8);
  for (let client = 0; client < clients; client++) {
    const follow = next() < 0.7 ? Math.floor(next() * capacity) : -1;
    const view = interest.addView(client, {
      enterRadius: 50 + next() * 200,
      leaveFactor: 1 + next() * 0.5,
      follow,
    });
    if (follow < 0) view.setCenter(next() * size, next() * size, dimensions === 3 ? next() * 200 : 0);
    if (next() < 0.5) view.addAlwaysRelevant(Math.floor(next() * capacity));
    views.push(view);
    model.push({ relevant: new Set(), pendingLeft: [] });
  }
  interest.addAlwaysRelevant(0);

  for (let tick = 0; tick < 60; tick++) {
    // Moves: most small (hovering around radii), some jumps; some removals and re-adds.
    for (let k = 0; k < capacity / 4; k++) {
      const id = Math.floor(next() * capacity);
      const roll = next();
      if (!present.has(id)) {
        if (roll < 0.3) add(id);
      } else if (roll < 0.05) {
        interest.removeEntity(id);
        present.delete(id);
        views.forEach((view, v) => {
          assert.equal(view.has(id), false, 'removal leaves every view at once');
          if (model[v].relevant.delete(id)) model[v].pendingLeft.push(id);
        });
        if (roll < 0.02) add(id); // the id reused before the next update
      } else {
        const step = roll < 0.9 ? 15 : size;
        for (let axis = 0; axis < dimensions; axis++) pos[id * 3 + axis] += (next() - 0.5) * step;
        interest.moveEntity(id, pos[id * 3], pos[id * 3 + 1], pos[id * 3 + 2]);
      }
    }
    interest.update();

    views.forEach((view, v) => {
      const m = model[v];
      const f = view.follow;
      if (f >= 0 && present.has(f))
        assert.deepEqual([view.centerX, view.centerY], [pos[f * 3], pos[f * 3 + 1]]);
      const enter2 = view.enterRadius * view.enterRadius;
      const leave2 = view.leaveRadius * view.leaveRadius;
      const now = new Set<number>();
      for (const id of present) {
        const dx = pos[id * 3] - view.centerX;
        const dy = pos[id * 3 + 1] - view.centerY;
        const dz = pos[id * 3 + 2] - view.centerZ;
        const d2 = dx * dx + dy * dy + dz * dz;
        const always = id === 0 || view.alwaysRelevant.indexOf(id) >= 0;
        let relevant = false;
        if (d2 <= leave2) {
          const inRange = d2 <= enter2 || m.relevant.has(id);
          relevant = withFilter ? testFilter(view, id, inRange) : inRange;
        }
        if (always || relevant) now.add(id);
      }
      const entered = [...now].filter((id) => !m.relevant.has(id));
      const left = [...m.pendingLeft, ...[...m.relevant].filter((id) => !now.has(id))];
      assert.deepEqual(members(view), sorted(now), `tick ${tick} client ${v}: relevant set`);
      assert.deepEqual(sorted(view.entered.toArray()), sorted(entered), `tick ${tick} client ${v}: entered`);
      assert.deepEqual(sorted(view.left.toArray()), sorted(left), `tick ${tick} client ${v}: left`);
      for (const id of now) assert.ok(view.has(id));
      m.relevant = now;
      m.pendingLeft = [];
    });
  }
}

describe('InterestManager', () => {
  it('2D: relevant sets, entered and left match the model (hysteresis, always-relevant, removals)', () => {
    for (let run = 0; run < 40; run++) randomRun(SEED + run, 2, false);
  });

  it('3D with a filter that vetoes and forces: sets and lists match the model', () => {
    for (let run = 0; run < 40; run++) randomRun(SEED + 500 + run, 3, true);
  });

  it('without a filter, slots, entered and left come in the same order as with a filter that agrees', () => {
    // The distance pass (no filter) and the stamped pass (a filter) must give the senders the
    // same slots and lists, order included: the order decides ties in priority and the order of
    // destroys on the wire.
    for (let run = 0; run < 30; run++) {
      const dimensions = run % 2 === 0 ? 2 : 3;
      const next = prng(SEED + 900 + run);
      const capacity = 200 + Math.floor(next() * 200);
      const make = (filter: RelevanceFilter | undefined) =>
        new InterestManager({
          world: {
            capacity,
            min: dimensions === 3 ? [0, 0, 0] : [0, 0],
            max: [500, 500, 100].slice(0, dimensions),
            cellSize: 30,
          },
          maxClients: 4,
          filter,
        });
      const plain = make(undefined);
      const filtered = make((_view, _id, inRange) => inRange);
      const both = [plain, filtered];
      const pos = new Float64Array(capacity * 3);
      for (let id = 0; id < capacity; id++) {
        for (let axis = 0; axis < dimensions; axis++) pos[id * 3 + axis] = next() * (axis === 2 ? 100 : 500);
        for (const m of both) m.addEntity(id, pos[id * 3], pos[id * 3 + 1], pos[id * 3 + 2]);
      }
      for (let client = 0; client < 4; client++) {
        const options = { enterRadius: 40 + next() * 100, leaveFactor: 1 + next() * 0.3, follow: client * 7 };
        const always = Math.floor(next() * capacity);
        for (const m of both) m.addView(client, options).addAlwaysRelevant(always);
      }
      for (const m of both) m.addAlwaysRelevant(1);
      for (let tick = 0; tick < 40; tick++) {
        for (let k = 0; k < capacity / 3; k++) {
          const id = Math.floor(next() * capacity);
          const step = next() < 0.9 ? 12 : 500;
          for (let axis = 0; axis < dimensions; axis++) pos[id * 3 + axis] += (next() - 0.5) * step;
          if (next() < 0.02) {
            for (const m of both) m.removeEntity(id);
            for (const m of both) m.addEntity(id, pos[id * 3], pos[id * 3 + 1], pos[id * 3 + 2]);
          } else for (const m of both) m.moveEntity(id, pos[id * 3], pos[id * 3 + 1], pos[id * 3 + 2]);
        }
        for (const m of both) m.update();
        for (let client = 0; client < 4; client++) {
          const [a, b] = both.map((m) => m.view(client)!);
          const where = `run ${run} tick ${tick} client ${client}`;
          assert.deepEqual(
            [...a.ids.subarray(0, a.count)],
            [...b.ids.subarray(0, b.count)],
            `${where}: slots`,
          );
          assert.deepEqual(a.entered.toArray(), b.entered.toArray(), `${where}: entered`);
          assert.deepEqual(a.left.toArray(), b.left.toArray(), `${where}: left`);
        }
      }
    }
  });

  it('an entity oscillating across the enter radius by less than the band never flaps', () => {
    const next = prng(SEED);
    for (let run = 0; run < 50; run++) {
      const enter = 50 + next() * 150;
      const factor = 1.05 + next() * 0.3;
      const interest = new InterestManager({
        world: { capacity: 2, min: [-1000, -1000], max: [1000, 1000], cellSize: 10 + next() * 100 },
        maxClients: 1,
      });
      const view = interest.addView(0, { enterRadius: enter, leaveFactor: factor });
      const angle = next() * 2 * Math.PI;
      const at = (d: number) => interest.moveEntity(1, d * Math.cos(angle), d * Math.sin(angle));
      interest.addEntity(1, 0, 0);
      at(enter * 1.5);
      interest.update();
      assert.equal(view.has(1), false);
      at(enter * (0.9 + next() * 0.1));
      interest.update();
      assert.deepEqual(view.entered.toArray(), [1]);
      let changes = 0;
      for (let tick = 0; tick < 200; tick++) {
        // Anywhere from just inside the enter radius to just inside the leave radius.
        at(enter * (0.9 + next() * (factor - 0.9) * 0.999));
        interest.update();
        changes += view.entered.length + view.left.length;
      }
      assert.equal(changes, 0, 'it flapped');
      at(enter * factor * 1.01);
      interest.update();
      assert.deepEqual(view.left.toArray(), [1], 'beyond the leave radius it leaves');
    }
  });

  it('always-relevant entities are relevant anywhere and whatever the filter says; removal reports left', () => {
    const interest = new InterestManager({
      world: { capacity: 10, min: [0, 0], max: [1000, 1000], cellSize: 50 },
      maxClients: 2,
      filter: () => false,
    });
    const a = interest.addView(0, { enterRadius: 100 });
    const b = interest.addView(1, { enterRadius: 100 });
    a.setCenter(0, 0);
    b.setCenter(900, 900);
    interest.addEntity(3, 950, 950); // near b, far from a
    interest.addEntity(4, 10, 10); // near a, vetoed by the filter
    interest.addEntity(5, 500, 500);
    interest.addAlwaysRelevant(5);
    a.addAlwaysRelevant(3);
    interest.update();
    assert.deepEqual(members(a), [3, 5]);
    assert.deepEqual(members(b), [5]);
    assert.deepEqual(sorted(a.entered.toArray()), [3, 5]);
    interest.removeEntity(5);
    assert.equal(a.has(5), false);
    assert.equal(b.has(5), false);
    interest.update();
    assert.deepEqual(a.left.toArray(), [5]);
    assert.deepEqual(b.left.toArray(), [5]);
    assert.deepEqual(a.entered.toArray(), []);
    a.removeAlwaysRelevant(3);
    interest.update();
    assert.deepEqual(a.left.toArray(), [3]);
    assert.equal(a.count, 0);
  });

  it('misuse throws at the call, naming the argument', () => {
    const interest = new InterestManager({
      world: { capacity: 10, min: [0, 0], max: [100, 100], cellSize: 10 },
      maxClients: 2,
    });
    assert.throws(() => interest.addView(2, { enterRadius: 10 }), /client must be an integer in \[0, 1\]/);
    assert.throws(() => interest.addView(0, { enterRadius: 0 }), /radius must be a finite number > 0/);
    assert.throws(() => interest.addView(0, { enterRadius: Number.NaN }), /radius/);
    assert.throws(() => interest.addView(0, { enterRadius: 5, leaveFactor: 0.9 }), /factor must be/);
    assert.throws(() => interest.addView(0, { enterRadius: 5, follow: 10 }), /id must be/);
    const view = interest.addView(0, { enterRadius: 5 });
    assert.throws(() => interest.addView(0, { enterRadius: 5 }), /already has a view/);
    assert.throws(() => view.setCenter(Number.NaN, 0), /finite/);
    assert.throws(() => view.has(10), /id must be/);
    assert.throws(() => interest.addEntity(0, 0, Number.NaN), /y must be a finite/);
    assert.throws(() => interest.removeEntity(1), /not in the grid/);
    interest.removeView(0);
    assert.equal(interest.view(0), undefined);
    assert.equal(interest.allViews.length, 0);
    assert.equal(interest.addView(0, { enterRadius: 5 }).count, 0, 'a client index can be reused');
  });
});
