/**
 * LatencyClient on its own: what it refuses at the call, and that it sends no input before its
 * clock is placed on the server's tick. Its behaviour through the whole stack is in
 * test/latency/latency-e2e.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { t } from '../../src/index.js';
import { InputSender, LatencyClient, Predictor } from '../../src/latency/index.js';
import { ClientMirror, defineEntity } from '../../src/replication/index.js';

const place = t.object({ x: t.float(-64, 64, 1 / 64) });
const Player = defineEntity('player', place);
const Move = t.object({ dx: t.int(-1, 1) });

function make() {
  const mirror = new ClientMirror({ types: [Player], capacity: 8 });
  const inputs = new InputSender({ schema: Move });
  const predictor = new Predictor<{ x: number }, { dx: number }>({
    schema: place,
    simulate: (s, i) => ({ x: s.x + i.dx }),
    tickRate: 60,
  });
  return new LatencyClient({ tickRate: 60, mirror, inputs, predictor, rttSample: () => 0 });
}

describe('LatencyClient', () => {
  it('pushes no input and predicts nothing before a snapshot places its clock', () => {
    const latency = make();
    let asked = 0;
    for (let now = 0; now < 1; now += 1 / 60)
      latency.frame(now, () => {
        asked++;
        return { dx: 1 };
      });
    assert.equal(asked, 0);
    assert.equal(latency.inputs.newestTick, -1);
    assert.equal(latency.predicting, false);
    assert.equal(latency.shown(), null);
    assert.ok(Number.isNaN(latency.renderTick));
    assert.equal(latency.mirror.sectionsApplied, 0);
    assert.throws(() => latency.mirror.sectionTick(0), RangeError);
  });

  it('throws at the call for time going back or not finite, a bad follow id or buffer', () => {
    const latency = make();
    latency.frame(1, () => ({ dx: 0 }));
    assert.throws(() => latency.frame(0.5, () => ({ dx: 0 })), RangeError);
    assert.throws(() => latency.frame(Number.NaN, () => ({ dx: 0 })), RangeError);
    assert.throws(() => latency.follow(8), RangeError);
    assert.throws(() => latency.follow(1.5), RangeError);
    latency.follow(3);
    assert.equal(latency.following, 3);
    latency.follow(-1);
    assert.equal(latency.following, -1);
    const mirror = new ClientMirror({ types: [Player], capacity: 8 });
    const inputs = new InputSender({ schema: Move });
    assert.throws(
      () => new LatencyClient({ tickRate: 60, mirror, inputs, rttSample: () => 0, bufferTicks: -1 }),
      RangeError,
    );
  });

  it('a server tick at the end of the uint32 range never makes frame throw: ticks past 2^32-1 push no input', () => {
    const mirror = {
      capacity: 8,
      newestTick: 2 ** 32 - 60,
      sectionsApplied: 0,
      sectionTick: () => 0,
      ghost: () => null,
    } as unknown as ClientMirror;
    const inputs = new InputSender({ schema: Move });
    const latency = new LatencyClient({ tickRate: 60, mirror, inputs, rttSample: () => 20 });
    const asked: number[] = [];
    for (let now = 0; now < 3; now += 1 / 60) {
      (mirror as { newestTick: number }).newestTick = Math.min(
        2 ** 32 - 1,
        2 ** 32 - 60 + Math.floor(now * 60),
      );
      latency.frame(now, (tick) => {
        asked.push(tick);
        return { dx: 0 };
      });
    }
    assert.ok(asked.length > 0, 'inputs pushed up to the last tick');
    assert.ok(Math.max(...asked) <= 2 ** 32 - 1);
    assert.equal(inputs.newestTick, 2 ** 32 - 1, 'the last tick is pushed; the clock runs on past it');
  });
});
