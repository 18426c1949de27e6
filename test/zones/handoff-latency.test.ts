/**
 * Handoff latency as zone threads measure it: which arrivals a step stepped first (ZoneServer's
 * steppedArrivals), the fixed bins they are counted in (HandoffLatency) and their quantiles; and
 * the border count the bench divides cross-zone bytes by (ZoneServer.entitiesNearBorder).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  HandoffLatency,
  LATENCY_MS_BIN_WIDTH,
  LATENCY_MS_BINS,
  LATENCY_TICK_BINS,
  quantileBin,
} from '../../src/zones/handoff-latency.js';
import { ZoneMap } from '../../src/zones/zone-map.js';
import { type OutgoingHandoff, ZoneServer } from '../../src/zones/zone-server.js';
import { SIDE, zoneRules } from '../support/zone-game.js';

const WANDERERS = 40;
const map = ZoneMap.grid({ minX: 0, minY: 0, maxX: SIDE, maxY: SIDE }, 2, 1, 2, 1);
const zoneOf = (zone: number, tick = 0) =>
  new ZoneServer({
    rules: zoneRules(zone, 7, WANDERERS),
    map,
    zone,
    epoch: 1,
    handoff: { margin: 1, minDwellTicks: 0 },
    tick,
  });

/** Zone 0's first step: it spawns every wanderer and hands on those in zone 1's half. */
function firstHandoffs(): { from: ZoneServer; handoffs: OutgoingHandoff[] } {
  const from = zoneOf(0);
  const { handoffs } = from.step();
  assert.ok(handoffs.length > 5, `zone 0 hands some wanderers on at once (${handoffs.length})`);
  return { from, handoffs };
}

describe('handoff latency', () => {
  it('names each arrival once, in the step that first steps it, by its decision tick', () => {
    const { handoffs } = firstHandoffs();
    // Both zones have stepped tick 1: zone 0 decided at its end, for tick 2.
    const to = zoneOf(1, 1);
    for (const h of handoffs) assert.equal(to.arrive(h.record, h.tick), true);
    assert.deepEqual(to.steppedArrivals, [], 'nothing stepped before the step');
    to.step();
    assert.equal(to.tick, 2);
    assert.deepEqual(
      to.steppedArrivals,
      handoffs.map((h) => h.tick - 1),
    );
    // Decided at the end of tick 1, stepped at tick 2: the least latency, one tick.
    for (const decided of to.steppedArrivals) assert.equal(to.tick - decided, 1);
    to.step();
    assert.deepEqual(to.steppedArrivals, [], 'the next step names none again');
  });

  it('counts the ticks a late arrival waited, and not an entity a refused commit brought back', () => {
    const { from, handoffs } = firstHandoffs();
    // The destination is 3 ticks ahead: each arrival enters late and is stepped at tick 5.
    const to = zoneOf(1, 4);
    for (const h of handoffs.slice(1)) to.arrive(h.record, h.tick);
    from.handoffRefused(handoffs[0]);
    from.step();
    assert.deepEqual(from.steppedArrivals, [], 'a return is not a handoff');
    to.step();
    assert.equal(to.steppedArrivals.length, handoffs.length - 1);
    for (const decided of to.steppedArrivals) assert.equal(to.tick - decided, 4);
  });

  it('bins ticks and milliseconds and finds their quantiles', () => {
    const latency = new HandoffLatency();
    assert.equal(quantileBin(latency.counts().byTicks, 0.5), -1, 'nothing counted');
    for (let i = 0; i < 98; i++) latency.record(1, 51);
    latency.record(3, 160);
    latency.record(1000, 1e9); // beyond the last bins: counted in them
    const { byTicks: ticks, byMs: ms } = latency.counts();
    assert.equal(ticks.length, LATENCY_TICK_BINS);
    assert.equal(ms.length, LATENCY_MS_BINS);
    assert.equal(ticks[LATENCY_TICK_BINS - 1], 1);
    assert.equal(ms[LATENCY_MS_BINS - 1], 1);
    assert.equal(quantileBin(ticks, 0.5), 1);
    assert.equal(quantileBin(ticks, 0.99), 3);
    assert.equal(quantileBin(ticks, 1), LATENCY_TICK_BINS - 1);
    // 51 ms is in [50, 52): the bin's upper edge bounds it.
    assert.equal((quantileBin(ms, 0.5) + 1) * LATENCY_MS_BIN_WIDTH, 52);
    assert.equal((quantileBin(ms, 0.99) + 1) * LATENCY_MS_BIN_WIDTH, 162);
    latency.record(-5, -5); // a clock stepped back: the first bins
    assert.equal(latency.counts().byTicks[0], 1);
    assert.equal(latency.counts().byMs[0], 1);
  });
});

describe('ZoneServer.entitiesNearBorder', () => {
  it('counts the owned entities within the radius of another zone', () => {
    const zone = zoneOf(0);
    zone.step();
    const near = (radius: number) =>
      zone.simulation.owned.filter((e) => {
        const [x] = [(e.state as { x: number }).x];
        return SIDE / 2 - x <= radius;
      }).length;
    for (const radius of [0.5, 5, 20, SIDE])
      assert.equal(zone.entitiesNearBorder(radius), near(radius), `radius ${radius}`);
    assert.equal(zone.entitiesNearBorder(SIDE), zone.simulation.owned.length);
  });
});
