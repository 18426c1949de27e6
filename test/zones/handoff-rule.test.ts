/**
 * HandoffRule (memo B4 hysteresis): hand an entity on only past its owner's cells by the margin,
 * never twice within the dwell, corners to the deepest zone with ties to the lowest index; random
 * walks over random maps never ping-pong faster than the dwell.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prng, randomInt } from '../../src/random/prng.js';
import { HandoffRule } from '../../src/zones/handoff-rule.js';
import { ZoneMap } from '../../src/zones/zone-map.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('handoff rule');
const WORLD = { minX: 0, minY: 0, maxX: 100, maxY: 100 };

describe('HandoffRule', () => {
  it('two zones side by side: inside the margin the owner keeps the entity, past it the neighbour takes it', () => {
    const map = ZoneMap.grid(WORLD, 10, 10, 2, 1);
    const rule = new HandoffRule({ margin: 2, minDwellTicks: 30 });
    assert.equal(rule.target(map, 0, 49, 10, 100), null, 'inside its owner');
    assert.equal(rule.target(map, 0, 51.9, 10, 100), null, 'in zone 1 but within the margin');
    assert.equal(rule.target(map, 0, 52, 10, 100), null, 'exactly at the margin stays');
    assert.equal(rule.target(map, 0, 52.1, 10, 100), 1);
    assert.equal(rule.target(map, 0, 52.1, 10, 29), null, 'within the dwell after its last handoff');
    assert.equal(rule.target(map, 0, 52.1, 10, 30), 1, 'the dwell is over');
    assert.equal(rule.target(map, 1, 52.1, 10, 100), null, 'already owned where it is');
    assert.equal(rule.target(map, 1, 500, -7, 100), null, 'off the world: clamped into its owner');
    assert.equal(
      rule.target(map, 0, 500, -7, 100),
      1,
      'off the world past the margin: the zone it is clamped into',
    );
    assert.equal(
      new HandoffRule({ margin: 0, minDwellTicks: 0 }).target(map, 0, 50, 10, 0),
      null,
      'on the border',
    );
  });

  it('corners: the zone the entity is inside; on a border of several, the lowest index', () => {
    // 0 | 1 below, 2 | 3 above, meeting at (50, 50).
    const map = ZoneMap.grid(WORLD, 2, 2, 2, 2);
    const rule = new HandoffRule({ margin: 2, minDwellTicks: 0 });
    assert.equal(rule.target(map, 0, 51, 51, 0), null, 'sqrt(2) from zone 0: within the margin');
    assert.equal(rule.target(map, 0, 52, 52, 0), 3, 'inside zone 3, past the margin on the diagonal');
    assert.equal(rule.target(map, 0, 75, 50, 0), 1, 'on the border of 1 and 3: both at depth 0, 1 is lower');
    assert.equal(map.zoneAt(75, 50), 3, 'where zoneAt (half-open) would say 3');
    assert.equal(rule.target(map, 3, 25, 50, 0), 0, 'on the border of 0 and 2');
    // Zone 3 owns nothing after a merge: its entities go wherever they are at once.
    map.moveCells([3], 1);
    assert.equal(rule.target(map, 3, 75, 75, 0), 1);
  });

  it('random walks on random maps: no handoff within the dwell or within h of travel, the target holds the entity and had a proxy, the owner stays near', () => {
    const next = prng(SEED);
    let handoffs = 0;
    for (let trial = 0; trial < 40; trial++) {
      const columns = 2 + randomInt(next, 8);
      const rows = 2 + randomInt(next, 8);
      const zones = 2 + randomInt(next, 5);
      const cellZones = Array.from({ length: columns * rows }, () => randomInt(next, zones));
      const map = new ZoneMap({ ...WORLD, columns, rows, cellZones });
      const margin = next() * 5;
      const minDwellTicks = randomInt(next, 40);
      const rule = new HandoffRule({ margin, minDwellTicks });
      const step = 0.2 + next() * 3;
      let x = next() * 100;
      let y = next() * 100;
      let owner = map.zoneAt(x, y);
      let sinceHandoff = minDwellTicks; // free to move from the start
      let travelled = 0;
      let lastHandoffTick = Number.NEGATIVE_INFINITY;
      for (let tick = 0; tick < 1500; tick++) {
        // A random walk, held inside the world.
        const angle = next() * 2 * Math.PI;
        const [prevX, prevY] = [x, y];
        x = Math.min(100, Math.max(0, x + Math.cos(angle) * step));
        y = Math.min(100, Math.max(0, y + Math.sin(angle) * step));
        travelled += Math.hypot(x - prevX, y - prevY);
        sinceHandoff++;
        const target = rule.target(map, owner, x, y, sinceHandoff);
        if (target === null) {
          // Once the dwell is over, an entity that stays is within the margin of its owner.
          if (sinceHandoff >= minDwellTicks) assert.ok(map.distanceToZone(owner, x, y) <= margin);
          continue;
        }
        assert.notEqual(target, owner);
        assert.ok(tick - lastHandoffTick >= minDwellTicks, `handoffs ${tick - lastHandoffTick} ticks apart`);
        assert.ok(map.zonesTouching(x, y).includes(target), 'the target holds the entity');
        assert.ok(map.distanceToZone(owner, x, y) > margin);
        // Why h < r: with an interest radius of h plus one step, the target held a proxy of the
        // entity the tick before, and the old owner holds one now (if the entity was within h of
        // it the tick before, as it is once the dwell is over): no ghost has to appear from nothing.
        const radius = margin + step;
        assert.ok(map.proxyZones(owner, prevX, prevY, radius).includes(target), 'the target had a proxy');
        if (sinceHandoff - 1 >= minDwellTicks)
          assert.ok(map.proxyZones(target, x, y, radius).includes(owner), 'the old owner keeps a proxy');
        if (lastHandoffTick >= 0)
          assert.ok(travelled > margin, `only ${travelled} travelled since the last handoff`);
        owner = target;
        sinceHandoff = 0;
        travelled = 0;
        lastHandoffTick = tick;
        handoffs++;
      }
    }
    assert.ok(handoffs > 100, `the walks crossed borders (${handoffs} handoffs)`);
  });

  it('an entity that oscillates across a border (a lying or jittering client) is handed on at most once per dwell', () => {
    const map = ZoneMap.grid(WORLD, 10, 10, 2, 1);
    const rule = new HandoffRule({ margin: 1, minDwellTicks: 30 });
    let owner = 0;
    let sinceHandoff = 30;
    let handoffs = 0;
    for (let tick = 0; tick < 300; tick++) {
      const x = tick % 2 === 0 ? 47 : 53; // 3 units either side, every tick
      sinceHandoff++;
      const target = rule.target(map, owner, x, 50, sinceHandoff);
      if (target === null) continue;
      owner = target;
      sinceHandoff = 0;
      handoffs++;
    }
    assert.equal(handoffs, 10, 'one handoff per 30 ticks, not one per tick');
  });

  it('misuse throws at the call', () => {
    const map = ZoneMap.grid(WORLD, 2, 2, 2, 2);
    assert.throws(() => new HandoffRule({ margin: -1, minDwellTicks: 0 }), RangeError);
    assert.throws(() => new HandoffRule({ margin: Number.NaN, minDwellTicks: 0 }), RangeError);
    assert.throws(() => new HandoffRule({ margin: 1, minDwellTicks: 1.5 }), RangeError);
    const rule = new HandoffRule({ margin: 1, minDwellTicks: 10 });
    assert.throws(() => rule.target(map, 0, 1, 1, -1), RangeError);
    assert.throws(() => rule.target(map, 0, Number.NaN, 1, 0), RangeError, 'even within the dwell');
    assert.throws(() => rule.target(map, 256, 1, 1, 0), RangeError);
  });
});
